-- Every attribute of one block: (value, class) counts summed out of the block's joint counts in
-- a single pass over them, one GROUP BY for the whole block instead of one per attribute (a
-- statement's planning time grows with its GROUP BYs: 35 attributes' marginals took 0.2-0.4 s
-- to plan on DuckDB, for 700 rows). The block's attributes come as a small VALUES list, each
-- row naming the attribute and the block slot (a0, a1, ...) holding it; $value picks the
-- slot's value as text (CASE s.slot WHEN 0 THEN CAST(b.a0 AS VARCHAR) ... END). NULL values
-- are left out (of that attribute only), and so are NULL classes. The class is tested and
-- grouped raw, cast to text only after grouping: a filter on the cast would be pushed into the
-- source scan and cast every row there.
-- The counts are per value of the block's partition column wml_part (e.g. a cross-validation
-- fold id; 0 for one partition).
-- Placeholders: $block (relation from count_block.sql), $slots (VALUES s(attribute, slot)),
--   $value (the slot-picking expression over b, s), $block_partition ("b.wml_part AS
--   wml_part"), $partition_columns ("x.wml_part AS wml_part"), $partition_group ("x.wml_part").
-- Output columns: wml_part, attribute (VARCHAR), value (VARCHAR), class_label (VARCHAR), n
--   (BIGINT rows, or DECIMAL summed weights).
-- Rendered by: warehouse_ml/stats/counting.py.
SELECT
    $partition_columns,
    x.attribute AS attribute,
    x.value AS value,
    CAST(x.class_value AS VARCHAR) AS class_label,
    SUM(x.n) AS n
FROM (
    SELECT
        $block_partition,
        s.attribute AS attribute,
        $value AS value,
        b.class_value AS class_value,
        b.n AS n
    FROM $block AS b
    CROSS JOIN $slots AS s
) AS x
WHERE x.value IS NOT NULL AND x.class_value IS NOT NULL
GROUP BY x.attribute, x.value, x.class_value, $partition_group
