-- Expression: a numeric attribute's value standardised as scikit-learn's StandardScaler does,
-- (x - mean) / scale, with the training mean and population standard deviation (scale 1 when
-- the deviation is 0); a NULL value is the training mean, 0 after scaling.
-- Placeholders: $value (the source column), $mean (DOUBLE), $scale (DOUBLE > 0).
-- Rendered by: warehouse_ml/models/learners/shared/design.py.
SELECT COALESCE((CAST($value AS DOUBLE) - $mean) / $scale, CAST(0 AS DOUBLE)) AS standardized
