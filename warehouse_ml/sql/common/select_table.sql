-- Every row of a (small) table, e.g. a model's parameters, in a fixed order of its first
-- columns given by $order_columns.
-- Placeholders: $table, $order_columns (list of column references).
-- Rendered by: warehouse_ml/cli/demo.py, warehouse_ml/evaluation/resampling.py, warehouse_ml/evaluation/result.py, warehouse_ml/evaluation/splits.py, warehouse_ml/models/learners/bayes/tan.py, warehouse_ml/stats/validation.py, warehouse_ml/store/catalog.py.
SELECT * FROM $table AS t ORDER BY $order_columns
