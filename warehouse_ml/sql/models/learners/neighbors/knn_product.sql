-- Expression: a numeric attribute's part of the inner product of two rows' standardised
-- values (models/learners/shared/design.py: NULL is 0), for the cosine distance; with the same
-- value twice, its part of a row's squared norm.
-- Placeholders: $scored, $stored (DOUBLE standardised values).
-- Rendered by: warehouse_ml/models/learners/neighbors/metrics.py.
SELECT $scored * $stored AS product
