-- One attribute's TAN conditional probability rows turned into one row per (value, parent
-- value) with one column per class.
-- Placeholders: $table (a model's cpt table), $attribute (attribute name, a string value),
--   $class_columns (list of aliased MAX(CASE WHEN p.class_index = i THEN p.log_prob END) items).
-- Output columns: value (VARCHAR), parent_value (VARCHAR), then the class columns.
-- Rendered by: warehouse_ml/models/tan.py.
SELECT p.value AS value, p.parent_value AS parent_value, $class_columns
FROM $table AS p
WHERE p.attribute = $attribute
GROUP BY p.value, p.parent_value
