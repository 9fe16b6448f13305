-- Placeholders: $view. Output: none.
-- Rendered by: warehouse_ml/__init__.py, warehouse_ml/models/scoring/views.py, warehouse_ml/store/ownership.py.
DROP VIEW IF EXISTS $view
