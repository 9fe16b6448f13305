-- Hold-out split, once per repeat (random sub-sampling): position p is a test row when
-- FLOOR((p + 1) * f + 0.5) > FLOOR(p * f + 0.5), so each repeat has round(n * f) test rows
-- and, when stratified, each class has within one row of n_class * f.
-- Placeholders: $positions (relation from select_split_positions.sql), $columns (list of
--   aliased p.<column> items), $test_fraction (DOUBLE f in (0, 1)).
-- Output columns: the $columns, then "repeat" (INTEGER, 0-based), is_test (BOOLEAN).
-- Rendered by: warehouse_ml/evaluation/splits.py.
SELECT
    $columns,
    CAST(p.wml_repeat AS INTEGER) AS "repeat",
    FLOOR((p.wml_position + 1) * $test_fraction + 0.5)
        > FLOOR(p.wml_position * $test_fraction + 0.5) AS is_test
FROM $positions AS p
