-- One numeric attribute's moments picked out of the wide per-class moments.
-- Placeholders: $moments (relation from select_exact_class_moments.sql), $attribute (name, a
--   string value), $n_column, $mean_column, $variance_column, $extreme_column (its four
--   columns there), $partition_columns (list: the partition column aliased wml_part),
--   $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part, attribute (VARCHAR), class_label (VARCHAR), n ($count_type
--   non-NULL rows or their weights), mean (DOUBLE), variance (DOUBLE, population), extreme (DOUBLE, the value
--   farthest from the mean).
-- Rendered by: warehouse_ml/stats/moments.py.
SELECT
    $partition_columns,
    $attribute AS attribute,
    w.class_label AS class_label,
    CAST(w.$n_column AS $count_type) AS n,
    CAST(w.$mean_column AS DOUBLE) AS mean,
    CAST(w.$variance_column AS DOUBLE) AS variance,
    CAST(w.$extreme_column AS DOUBLE) AS extreme
FROM $moments AS w
