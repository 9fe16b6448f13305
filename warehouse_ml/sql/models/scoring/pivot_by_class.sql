-- Parameter rows with one row per class (optionally of one attribute) turned into one row per
-- model partition (column wml_part: 0 for a fitted model, the fold for cross-validation's
-- models) with one column per class.
-- Placeholders: $table (a parameter table with columns wml_part and class_index), $condition
--   (a boolean filter, e.g. p.attribute = '...'), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.<column> END) items).
-- Output columns: wml_part (INTEGER), then the class columns (one row per partition).
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/scoring/relations.py.
SELECT p.wml_part AS wml_part, $class_columns
FROM $table AS p
WHERE $condition
GROUP BY p.wml_part
