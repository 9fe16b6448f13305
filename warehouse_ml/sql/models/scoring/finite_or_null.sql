-- Expression: whether a numeric attribute's value can be scored: NULL (a missing value, which
-- every model skips) or a finite number. NaN and +-infinity cannot (a fit refuses them): a row
-- holding one gets NULL probabilities and prediction (models/scoring/query.py). ABS(x) <= the
-- largest DOUBLE is false for NaN and +-infinity on DuckDB, PostgreSQL and Spark, which order
-- NaN above every number.
-- Placeholders: $value (the attribute's column), $largest (the largest finite DOUBLE).
-- Rendered by: warehouse_ml/models/scoring/query.py.
SELECT $value IS NULL OR ABS(CAST($value AS DOUBLE)) <= $largest AS finite
