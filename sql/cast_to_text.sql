-- Expression: a value as text, the form in which categorical values are stored in a model.
-- Placeholders: $value.
SELECT CAST($value AS VARCHAR) AS text_value
