-- Every source row next to its split assignment, joined back by key: the rows were ranked and
-- assigned as narrow rows (select_split_positions.sql carrying only the key, then
-- select_fold_assignment.sql or select_holdout_split.sql), which moves much less data than
-- carrying every column through the ranking.
-- Placeholders: $assigned (relation: the assignment with a wml_key column), $assigned_columns
--   (list of a.<column>: fold, or "repeat" and is_test), $source (relation), $key (the key
--   column, unique and non-NULL).
-- Output columns: every source column, then the $assigned_columns.
-- Rendered by: warehouse_ml/evaluation/splits.py.
SELECT src.*, $assigned_columns
FROM $assigned AS a
JOIN $source AS src ON src.$key = a.wml_key
