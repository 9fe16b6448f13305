-- One attribute's parameter rows turned into one row per value with one column per class.
-- Placeholders: $table (a model's parameter table with columns attribute, class_index and
--   $key), $key (the column identifying a row: value, or a parent value for TAN), $attribute
--   (attribute name, a string value), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.<column> END) items).
-- Output columns: $key, then the class columns.
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/scoring.py.
SELECT p.$key AS $key, $class_columns
FROM $table AS p
WHERE p.attribute = $attribute
GROUP BY p.$key
