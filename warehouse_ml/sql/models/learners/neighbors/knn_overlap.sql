-- Expression: a categorical attribute's part of a reduced Minkowski distance (Euclidean,
-- Manhattan, ...), the overlap distance: 0 when the scored row's level is the stored row's,
-- else 1, whatever the power (a NULL or unseen value is the level number -1, a value of its
-- own: two NULLs are at distance 0).
-- Placeholders: $scored, $stored (INTEGER level numbers, -1 for NULL or unseen).
-- Rendered by: warehouse_ml/models/learners/neighbors/metrics.py.
SELECT CASE WHEN $scored = $stored THEN CAST(0 AS DOUBLE) ELSE CAST(1 AS DOUBLE) END AS overlap
