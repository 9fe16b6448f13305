-- Training moments of cross-validation folds: for each requested partition p, the exact pooled
-- count, mean and population variance of every other partition (Chan et al.:
-- M2 = sum M2_q + n_q (mean_q - mean)^2), read from the per-partition moments (no scan of the
-- source).
-- Placeholders: $per_partition (table with wml_part, attribute, class_label, n, mean,
--   variance), $partitions (VALUES relation p(wml_part): the held-out partitions wanted).
-- Output columns: wml_part (the held-out partition), attribute (VARCHAR), class_label
--   (VARCHAR), n (BIGINT non-NULL rows), mean (DOUBLE), variance (DOUBLE, population).
-- Rendered by: warehouse_ml/models/naive_bayes.py.
WITH kept AS (
    SELECT p.wml_part AS held_out, m.attribute, m.class_label, m.n, m.mean, m.variance
    FROM $per_partition AS m
    JOIN $partitions ON m.wml_part <> p.wml_part
    WHERE m.n > 0
),
pooled_mean AS (
    SELECT
        k.held_out,
        k.attribute,
        k.class_label,
        SUM(k.n) AS n,
        SUM(k.n * k.mean) / CAST(SUM(k.n) AS DOUBLE) AS mean
    FROM kept AS k
    GROUP BY k.held_out, k.attribute, k.class_label
)
SELECT
    p.held_out AS wml_part,
    p.attribute AS attribute,
    p.class_label AS class_label,
    CAST(p.n AS BIGINT) AS n,
    p.mean AS mean,
    SUM(k.n * (k.variance + (k.mean - p.mean) * (k.mean - p.mean))) / CAST(p.n AS DOUBLE)
        AS variance
FROM pooled_mean AS p
JOIN kept AS k
    ON k.held_out = p.held_out AND k.attribute = p.attribute AND k.class_label = p.class_label
GROUP BY p.held_out, p.attribute, p.class_label, p.n, p.mean
