-- Training moments of models that each learn from every partition but one (as
-- select_counts_outside_partitions.sql): for each requested model p.wml_part, the exact pooled
-- count, mean and population variance of every partition but p.wml_held_out (Chan et al.:
-- M2 = sum M2_q + n_q (mean_q - mean)^2), read from the per-partition moments (no scan of the
-- source).
-- Placeholders: $per_partition (table with wml_part, attribute, class_label, n, mean,
--   variance), $partitions (VALUES relation p(wml_part, wml_held_out): the models wanted), $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part (the model), attribute (VARCHAR), class_label
--   (VARCHAR), n (BIGINT non-NULL rows), mean (DOUBLE), variance (DOUBLE, population).
-- Rendered by: warehouse_ml/models/learners/bayes/naive_bayes.py.
WITH kept AS (
    SELECT p.wml_part AS wml_model, m.attribute, m.class_label, m.n, m.mean, m.variance
    FROM $per_partition AS m
    JOIN $partitions ON m.wml_part <> p.wml_held_out
    WHERE m.n > 0
),
pooled_mean AS (
    SELECT
        k.wml_model,
        k.attribute,
        k.class_label,
        SUM(k.n) AS n,
        SUM(k.n * k.mean) / CAST(SUM(k.n) AS DOUBLE) AS mean
    FROM kept AS k
    GROUP BY k.wml_model, k.attribute, k.class_label
)
SELECT
    p.wml_model AS wml_part,
    p.attribute AS attribute,
    p.class_label AS class_label,
    CAST(p.n AS $count_type) AS n,
    p.mean AS mean,
    SUM(k.n * (k.variance + (k.mean - p.mean) * (k.mean - p.mean))) / CAST(p.n AS DOUBLE)
        AS variance
FROM pooled_mean AS p
JOIN kept AS k
    ON k.wml_model = p.wml_model AND k.attribute = p.attribute AND k.class_label = p.class_label
GROUP BY p.wml_model, p.attribute, p.class_label, p.n, p.mean
