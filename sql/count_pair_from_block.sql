-- One attribute pair's (value_i, value_j, class) counts summed out of a block's joint counts.
-- Rows where either attribute or the class is NULL are left out (of this pair only).
-- Placeholders: $block (relation from count_block.sql), $attribute_i, $attribute_j (attribute
--   names, string values), $value_i, $value_j (the block columns holding those attributes).
-- Output columns: attribute_i (VARCHAR), attribute_j (VARCHAR), value_i (VARCHAR),
--   value_j (VARCHAR), class_label (VARCHAR), n (BIGINT rows).
SELECT
    $attribute_i AS attribute_i,
    $attribute_j AS attribute_j,
    CAST($value_i AS VARCHAR) AS value_i,
    CAST($value_j AS VARCHAR) AS value_j,
    CAST(b.class_value AS VARCHAR) AS class_label,
    SUM(b.n) AS n
FROM $block AS b
WHERE $value_i IS NOT NULL AND $value_j IS NOT NULL AND b.class_value IS NOT NULL
GROUP BY b.class_value, $value_i, $value_j
