-- Expression: an equality join condition.
-- Placeholders: $left, $right.
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/naive_bayes.py, warehouse_ml/models/scoring.py, warehouse_ml/models/tan.py.
SELECT $left = $right AS condition
