-- Expression: a value as text, the form in which categorical values are stored in a model.
-- Placeholders: $value.
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/literal_terms.py, warehouse_ml/models/naive_bayes.py, warehouse_ml/models/tan.py.
SELECT CAST($value AS VARCHAR) AS text_value
