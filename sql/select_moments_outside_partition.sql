-- Training moments of one cross-validation fold: the exact pooled count, mean and population
-- variance of every other partition (Chan et al.: M2 = sum M2_p + n_p (mean_p - mean)^2),
-- read from the per-partition moments (no scan of the source).
-- Placeholders: $moments (relation with wml_part, attribute, class_label, n, mean, variance),
--   $partition (the held-out partition value).
-- Output columns: attribute (VARCHAR), class_label (VARCHAR), n (BIGINT non-NULL rows),
--   mean (DOUBLE), variance (DOUBLE, population; NULL when n = 0).
WITH kept AS (
    SELECT m.attribute, m.class_label, m.n, m.mean, m.variance
    FROM $moments AS m
    WHERE m.wml_part <> $partition AND m.n > 0
),
pooled_mean AS (
    SELECT
        k.attribute,
        k.class_label,
        SUM(k.n) AS n,
        SUM(k.n * k.mean) / CAST(SUM(k.n) AS DOUBLE) AS mean
    FROM kept AS k
    GROUP BY k.attribute, k.class_label
)
SELECT
    p.attribute AS attribute,
    p.class_label AS class_label,
    CAST(p.n AS BIGINT) AS n,
    p.mean AS mean,
    SUM(k.n * (k.variance + (k.mean - p.mean) * (k.mean - p.mean))) / CAST(p.n AS DOUBLE)
        AS variance
FROM pooled_mean AS p
JOIN kept AS k ON k.attribute = p.attribute AND k.class_label = p.class_label
GROUP BY p.attribute, p.class_label, p.n, p.mean
