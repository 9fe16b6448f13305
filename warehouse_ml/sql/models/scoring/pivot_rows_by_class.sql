-- One attribute's parameter rows turned into one row per (model partition, key) with one
-- column per class.
-- Placeholders: $table (a parameter table with columns wml_part, attribute, class_index and
--   the key columns), $key_columns (list of "p.<key> AS <key>" items: value, or TAN's value
--   and parent_value), $key_group (the same columns, unaliased), $attribute (attribute name, a
--   string value), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.<column> END) items).
-- Output columns: wml_part (INTEGER), the key columns, then the class columns.
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/scoring/relations.py.
SELECT p.wml_part AS wml_part, $key_columns, $class_columns
FROM $table AS p
WHERE p.attribute = $attribute
GROUP BY p.wml_part, $key_group
