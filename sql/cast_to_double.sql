-- Expression: a numeric value as DOUBLE.
-- Placeholders: $value.
SELECT CAST($value AS DOUBLE) AS double_value
