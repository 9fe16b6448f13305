-- Like pivot_rows_by_class.sql, for parameter tables that hold one model per partition (e.g.
-- one per cross-validation fold, in column wml_part): one row per (partition, key).
-- Placeholders: $table, $key, $attribute, $class_columns (as in pivot_rows_by_class.sql).
-- Output columns: wml_part, $key, then the class columns.
-- Rendered by: warehouse_ml/models/scoring.py.
SELECT p.wml_part AS wml_part, p.$key AS $key, $class_columns
FROM $table AS p
WHERE p.attribute = $attribute
GROUP BY p.wml_part, p.$key
