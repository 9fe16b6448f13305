-- Pair counts of models that each learn from every partition but one (as
-- select_counts_outside_partitions.sql): for each requested model p.wml_part, the pair counts
-- of every partition but p.wml_held_out summed, read from the per-partition pair counts (no
-- scan of the source). Cells whose rows all lie in the held-out partition are absent, as in a
-- count of the training rows alone.
-- Placeholders: $per_partition (table with wml_part, attribute_i, attribute_j, value_i, value_j,
--   class_label, n; e.g. pairs.pair_counts_query with a partition), $partitions (VALUES
--   relation p(wml_part, wml_held_out): the models wanted), $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part (the model), attribute_i (VARCHAR), attribute_j
--   (VARCHAR), value_i (VARCHAR), value_j (VARCHAR), class_label (VARCHAR), n (BIGINT rows,
--   > 0).
-- Rendered by: warehouse_ml/models/learners/bayes/tan.py.
WITH totals AS (
    SELECT k.attribute_i, k.attribute_j, k.value_i, k.value_j, k.class_label, SUM(k.n) AS n
    FROM $per_partition AS k
    GROUP BY k.attribute_i, k.attribute_j, k.value_i, k.value_j, k.class_label
)
SELECT
    p.wml_part AS wml_part,
    t.attribute_i AS attribute_i,
    t.attribute_j AS attribute_j,
    t.value_i AS value_i,
    t.value_j AS value_j,
    t.class_label AS class_label,
    CAST(t.n - COALESCE(k.n, 0) AS $count_type) AS n
FROM totals AS t
CROSS JOIN $partitions
LEFT JOIN $per_partition AS k
    ON k.wml_part = p.wml_held_out AND k.attribute_i = t.attribute_i
    AND k.attribute_j = t.attribute_j AND k.value_i = t.value_i AND k.value_j = t.value_j
    AND k.class_label = t.class_label
WHERE t.n - COALESCE(k.n, 0) > 0
