-- A long-format parameter table turned into one row per (model partition, attribute, key
-- values) with one column per class, for the attributes a scoring query reads in long format
-- at once (every fold's model of a cross-validation, or partition 0 alone of a fitted model).
-- Placeholders: $table (a parameter table with columns wml_part, attribute, class_index and
--   the key columns), $attributes (a list of the attributes read, string values),
--   $key_columns (list of "p.<key> AS <key>" items: none for a table with one row per
--   attribute and class, value, parent_value, or TAN's value and parent_value), $key_group
--   (the same columns, unaliased), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.<column> END) items, relations.pivot_columns).
-- Output columns: wml_part (INTEGER), attribute (text), the key columns (text), then the class
--   columns (DOUBLE natural log; NULL for a zero probability).
-- Rendered by: warehouse_ml/models/keyed_terms/long_terms.py.
SELECT p.wml_part AS wml_part, p.attribute AS attribute, $key_columns, $class_columns
FROM $table AS p
WHERE p.attribute IN ($attributes)
GROUP BY p.wml_part, p.attribute, $key_group
