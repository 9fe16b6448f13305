-- The rows of a small library table (the catalog, the object registry) that satisfy a
-- condition, in a fixed order.
-- Placeholders: $table, $condition (a boolean expression over the columns of t),
--   $order_columns (list of t.<column>).
-- Output columns: those of $table.
-- Rendered by: warehouse_ml/store/catalog.py, warehouse_ml/store/ownership.py.
SELECT * FROM $table AS t WHERE $condition ORDER BY $order_columns
