-- Joint counts of the class and a block of categorical attributes (one scan of those columns).
-- Placeholders: $source (relation), $target (column), $block_columns (list of
--   "src.attribute AS a<i>" items), $group_columns (the same columns, unaliased), $count
--   (COUNT(*), or the exact sum of a weight column: counting.row_count).
-- Output columns: class_value, a<i> for each attribute of the block, n (BIGINT rows, or
--   DECIMAL summed weights).
-- Rendered by: warehouse_ml/stats/counting.py, warehouse_ml/stats/pairs.py.
SELECT src.$target AS class_value, $block_columns, $count AS n
FROM $source AS src
GROUP BY src.$target, $group_columns
