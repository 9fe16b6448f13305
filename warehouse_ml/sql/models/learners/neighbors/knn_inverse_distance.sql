-- Expression: a neighbour's weight under weights="distance", 1 / distance, or 0 for a neighbour
-- at distance 0 (whose row then counts its exact matches instead, as scikit-learn does).
-- Placeholders: $distance (the distance, DOUBLE >= 0).
-- Rendered by: warehouse_ml/models/learners/neighbors/search.py.
SELECT CASE WHEN $distance > 0 THEN 1 / $distance ELSE CAST(0 AS DOUBLE) END AS weight
