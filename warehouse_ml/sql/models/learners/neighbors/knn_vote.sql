-- Expression: one neighbour's vote for class $k, summed over a scored row's k nearest
-- neighbours: $weight when the neighbour is of that class, else 0.
-- Placeholders: $class_index (the neighbour's class, INTEGER), $k (integer), $weight (DOUBLE:
--   1 for uniform weights and for the exact-match votes, else the inverse distance,
--   knn_inverse_distance.sql).
-- Rendered by: warehouse_ml/models/learners/neighbors/search.py.
SELECT CASE WHEN $class_index = $k THEN $weight ELSE CAST(0 AS DOUBLE) END AS vote
