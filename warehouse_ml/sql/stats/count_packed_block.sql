-- Joint counts of the class and a block of categorical attributes, as count_block.sql (the same
-- output), where the block's integer codes of known ranges are grouped as ONE integer key
-- (stats/counting.py): each code's offset from its smallest value, a NULL as one slot more,
-- packed digit by digit, and decoded back after grouping. One scan of those columns.
-- Placeholders: $source (relation), $grouped (the grouped items, aliased: the partition column
--   "src.<fold> AS wml_part" if any, the class and attributes not packed as class_value and
--   a<i>, and the key "... AS wml_key"), $group_columns (the same, unaliased), $columns (the
--   output items over k: class_value and each a<i>, decoded from k.wml_key or passed through,
--   then wml_part), $count (COUNT(*), or the exact sum of a weight column:
--   counting.row_count).
-- Output columns: class_value, a<i> for each attribute of the block, wml_part, n (BIGINT rows,
--   or DECIMAL summed weights).
-- Rendered by: warehouse_ml/stats/counting.py.
SELECT $columns, k.n AS n
FROM (
    SELECT $grouped, $count AS n
    FROM $source AS src
    GROUP BY $group_columns
) AS k
