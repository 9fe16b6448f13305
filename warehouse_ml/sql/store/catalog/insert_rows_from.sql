-- Adds rows given as a VALUES relation to a table (the catalog, the object registry).
-- Placeholders: $table (target), $rows (a VALUES relation with the table's columns in order).
-- Output: none.
-- Rendered by: warehouse_ml/store/catalog.py, warehouse_ml/store/ownership.py.
INSERT INTO $table SELECT * FROM $rows
