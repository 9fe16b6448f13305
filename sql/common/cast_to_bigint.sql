-- Expression: a stored categorical value (text) back as BIGINT, to join integer codes without
-- casting every scored row to text.
-- Placeholders: $value.
-- Rendered by: warehouse_ml/models/naive_bayes.py.
SELECT CAST($value AS BIGINT) AS bigint_value
