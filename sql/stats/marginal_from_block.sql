-- One attribute's (value, class) counts summed out of a block's joint counts; NULL values and
-- NULL classes are left out (NULL attribute values are ignored per attribute).
-- Placeholders: $block (relation from count_block.sql), $attribute (attribute name, a string
--   value), $value (the block column holding that attribute), $partition_columns (list: the
--   block's partition column aliased wml_part, e.g. a fold id, or 0 AS wml_part for one
--   partition), $partition_group (the column, unaliased, or empty).
-- Output columns: wml_part, attribute (VARCHAR), value (VARCHAR), class_label
--   (VARCHAR), n (BIGINT rows).
-- Rendered by: warehouse_ml/stats/counting.py.
SELECT
    $partition_columns,
    $attribute AS attribute,
    CAST($value AS VARCHAR) AS value,
    CAST(b.class_value AS VARCHAR) AS class_label,
    SUM(b.n) AS n
FROM $block AS b
WHERE $value IS NOT NULL AND b.class_value IS NOT NULL
GROUP BY b.class_value, $value, $partition_group
