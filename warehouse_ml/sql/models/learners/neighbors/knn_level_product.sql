-- Expression: a categorical attribute's part of the inner product of two rows, for the cosine
-- distance: each row's level an indicator of value 1 / SQRT(2) (so that the Euclidean distance
-- of two levels is the overlap distance), 1/2 for the same level and 0 otherwise (a NULL or
-- unseen value is the level number -1, a level of its own).
-- Placeholders: $scored, $stored (INTEGER level numbers, -1 for NULL or unseen).
-- Rendered by: warehouse_ml/models/learners/neighbors/metrics.py.
SELECT CASE WHEN $scored = $stored THEN CAST(0.5 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END AS product
