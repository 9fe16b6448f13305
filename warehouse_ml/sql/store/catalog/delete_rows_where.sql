-- Removes the rows of a small library table (the catalog, the object registry) that satisfy a
-- condition (on Spark, rewritten by dialects.py into a copy without them).
-- Placeholders: $table, $condition (a boolean expression over the table's columns).
-- Output: none.
-- Rendered by: warehouse_ml/store/catalog.py, warehouse_ml/store/ownership.py.
DELETE FROM $table WHERE $condition
