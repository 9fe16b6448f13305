-- Expression: a numeric attribute's part of the Manhattan distance between a scored row and a
-- stored training row, both standardised (models/learners/shared/design.py: NULL is 0).
-- Placeholders: $scored, $stored (DOUBLE standardised values).
-- Rendered by: warehouse_ml/models/learners/neighbors/metrics.py.
SELECT ABS($scored - $stored) AS absolute_difference
