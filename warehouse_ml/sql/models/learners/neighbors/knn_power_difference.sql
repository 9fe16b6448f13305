-- Expression: a numeric attribute's part of the reduced Minkowski distance (the sum of the
-- p-th powers, before its p-th root) between a scored row and a stored training row, both
-- standardised (models/learners/shared/design.py: NULL is 0).
-- Placeholders: $scored, $stored (DOUBLE standardised values), $p (DOUBLE >= 1, the power).
-- Rendered by: warehouse_ml/models/learners/neighbors/metrics.py.
SELECT POWER(ABS($scored - $stored), $p) AS power_difference
