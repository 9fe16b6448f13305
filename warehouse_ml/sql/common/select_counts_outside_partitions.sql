-- Training counts of models that each learn from every partition but one: for each requested
-- model (p.wml_part) the counts of every partition but p.wml_held_out summed, i.e. the total
-- minus that partition, read from the per-partition counts (no scan of the source). A cell with
-- no count outside it is left out, as a fit on the other partitions' rows would never see it.
-- Cross-validation holds out fold f for model f; an update (models/living/updating.py) learns model
-- 0 from the stored counts and the batch's, holding out no partition (-1).
-- Placeholders: $per_partition (table with wml_part, attribute, value, class_label, n),
--   $partitions (VALUES relation p(wml_part, wml_held_out): the models wanted), $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part (the model), attribute (VARCHAR), value (VARCHAR),
--   class_label (VARCHAR), n (BIGINT rows outside the held-out partition).
-- Rendered by: warehouse_ml/models/learners/bayes/naive_bayes.py, warehouse_ml/models/learners/bayes/tan.py.
WITH totals AS (
    SELECT k.attribute, k.value, k.class_label, SUM(k.n) AS n
    FROM $per_partition AS k
    GROUP BY k.attribute, k.value, k.class_label
)
SELECT
    p.wml_part AS wml_part,
    t.attribute AS attribute,
    t.value AS value,
    t.class_label AS class_label,
    CAST(t.n - COALESCE(k.n, 0) AS $count_type) AS n
FROM totals AS t
CROSS JOIN $partitions
LEFT JOIN $per_partition AS k
    ON k.wml_part = p.wml_held_out AND k.attribute = t.attribute AND k.value = t.value
    AND k.class_label = t.class_label
WHERE t.n - COALESCE(k.n, 0) > 0
