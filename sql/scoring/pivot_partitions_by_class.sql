-- Like pivot_table_by_class.sql, for parameter tables that hold one model per partition
-- (column wml_part): one row per partition with one column per class.
-- Placeholders: $table, $condition, $class_columns (as in pivot_table_by_class.sql).
-- Output columns: wml_part, then the class columns.
-- Rendered by: warehouse_ml/models/scoring.py.
SELECT p.wml_part AS wml_part, $class_columns
FROM $table AS p
WHERE $condition
GROUP BY p.wml_part
