-- Every attribute pair of one block: (value_i, value_j, class) counts summed out of the block's
-- joint counts in a single pass over them. The block's pairs come as a small VALUES list, each
-- row naming the pair and the block slots (a0, a1, ...) holding its two attributes; $value_i
-- and $value_j pick the slot's value as text (CASE p.slot_i WHEN 0 THEN CAST(b.a0 AS VARCHAR)
-- ... END). Rows where either attribute or the class is NULL are left out (of that pair only).
-- The class is tested and grouped raw, cast to text only after grouping: a filter on the cast
-- would be pushed into the source scan and cast every row there.
-- The counts are per value of the block's partition column wml_part (e.g. a cross-validation
-- fold id; 0 for one partition).
-- Placeholders: $block (relation from count_block.sql), $pairs (VALUES p(attribute_i,
--   attribute_j, slot_i, slot_j)), $value_i, $value_j (the slot-picking expressions over b, p),
--   $block_partition ("b.wml_part AS wml_part"), $partition_columns
--   ("x.wml_part AS wml_part"), $partition_group ("x.wml_part").
-- Output columns: wml_part, attribute_i (VARCHAR), attribute_j (VARCHAR), value_i (VARCHAR),
--   value_j (VARCHAR), class_label (VARCHAR), n (BIGINT rows).
-- Rendered by: warehouse_ml/stats/pairs.py.
SELECT
    $partition_columns,
    x.attribute_i AS attribute_i,
    x.attribute_j AS attribute_j,
    x.value_i AS value_i,
    x.value_j AS value_j,
    CAST(x.class_value AS VARCHAR) AS class_label,
    SUM(x.n) AS n
FROM (
    SELECT
        $block_partition,
        p.attribute_i AS attribute_i,
        p.attribute_j AS attribute_j,
        $value_i AS value_i,
        $value_j AS value_j,
        b.class_value AS class_value,
        b.n AS n
    FROM $block AS b
    CROSS JOIN $pairs AS p
) AS x
WHERE x.value_i IS NOT NULL AND x.value_j IS NOT NULL AND x.class_value IS NOT NULL
GROUP BY x.attribute_i, x.attribute_j, x.value_i, x.value_j, x.class_value, $partition_group
