-- Parameter rows with one row per class (optionally of one attribute) turned into a single
-- row with one column per class.
-- Placeholders: $table (a model's parameter table with a class_index column), $condition
--   (a boolean filter, e.g. p.attribute = '...'), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.<column> END) items).
-- Output columns: the class columns (exactly one row).
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/scoring.py.
SELECT $class_columns
FROM $table AS p
WHERE $condition
