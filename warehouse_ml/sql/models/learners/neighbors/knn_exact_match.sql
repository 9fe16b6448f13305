-- Expression: a neighbour's weight among a row's exact matches: 1 at distance 0, else 0.
-- Placeholders: $reduced (the reduced distance, DOUBLE >= 0, 0 exactly at distance 0).
-- Rendered by: warehouse_ml/models/learners/neighbors/search.py.
SELECT CASE WHEN $reduced = 0 THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS weight
