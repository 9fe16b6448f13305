-- Placeholders: $table. Output: none.
-- Rendered by: warehouse_ml/evaluation/result.py, warehouse_ml/store/catalog.py, warehouse_ml/store/ownership.py.
DROP TABLE IF EXISTS $table
