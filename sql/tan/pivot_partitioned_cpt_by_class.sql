-- Like pivot_cpt_by_class.sql, for cpt tables that hold one model per partition (e.g. one per
-- cross-validation fold, in column wml_part, each with its own tree): one row per (partition,
-- value, parent value) of the attribute, whatever its parent in that partition.
-- Placeholders: $table (a cpt table with column wml_part), $attribute (attribute name, a string value),
--   $class_columns (as in pivot_cpt_by_class.sql).
-- Output columns: wml_part, value (VARCHAR), parent_value (VARCHAR), then the class columns.
-- Rendered by: warehouse_ml/models/tan.py.
SELECT p.wml_part AS wml_part, p.value AS value, p.parent_value AS parent_value, $class_columns
FROM $table AS p
WHERE p.attribute = $attribute
GROUP BY p.wml_part, p.value, p.parent_value
