-- Expression: a numeric value as DOUBLE.
-- Placeholders: $value.
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/literal_terms.py, warehouse_ml/models/naive_bayes.py.
SELECT CAST($value AS DOUBLE) AS double_value
