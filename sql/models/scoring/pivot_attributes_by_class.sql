-- The parameter rows of a fitted model's attributes turned into one row per (attribute, key)
-- with one column per class: a parameter table in the long format a scoring query joins the
-- scored rows to once per table, every attribute at once (models/scoring/unpivoted_terms.py).
-- Placeholders: $table (a parameter table with columns wml_part, attribute, class_index and
--   the key columns), $attributes (a list of the attributes read, string values),
--   $key_columns (list of "p.<key> AS <key>" items: none, value, parent_value, or TAN's
--   value and parent_value), $key_group (the same columns, unaliased), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.<column> END) items, relations.pivot_columns).
-- Output columns: attribute (text), the key columns (text), then the class columns (DOUBLE
--   natural log; NULL for a zero probability).
-- Rendered by: warehouse_ml/models/scoring/unpivoted_terms.py.
SELECT p.attribute AS attribute, $key_columns, $class_columns
FROM $table AS p
WHERE p.wml_part = 0 AND p.attribute IN ($attributes)
GROUP BY p.attribute, $key_group
