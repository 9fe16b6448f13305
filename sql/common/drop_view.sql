-- Placeholders: $view. Output: none.
-- Rendered by: warehouse_ml/__init__.py, warehouse_ml/models/views.py, warehouse_ml/store/ownership.py.
DROP VIEW IF EXISTS $view
