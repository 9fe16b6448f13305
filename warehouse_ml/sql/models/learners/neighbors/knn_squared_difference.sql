-- Expression: a numeric attribute's part of the squared Euclidean distance between a scored row
-- and a stored training row, both standardised (models/learners/shared/design.py: NULL is 0).
-- Placeholders: $scored, $stored (DOUBLE standardised values).
-- Rendered by: warehouse_ml/models/learners/neighbors/metrics.py.
SELECT ($scored - $stored) * ($scored - $stored) AS squared_difference
