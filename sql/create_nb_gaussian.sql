-- Gaussian parameters per numeric attribute and class, with scikit-learn's variance floor:
-- variance = population variance + var_smoothing * (largest overall variance of any numeric
-- attribute), the overall variance pooled exactly from the per-class moments.
-- Placeholders: $table (output), $moments (attribute, class_label, n, mean, variance),
--   $classes (a model's class table), $var_smoothing (number >= 0).
-- Output columns: attribute (VARCHAR), class_index (INTEGER), n (BIGINT non-NULL rows),
--   mean (DOUBLE), variance (DOUBLE, floored; NULL mean/variance when n = 0).
CREATE TABLE $table AS
WITH grand_mean AS (
    SELECT m.attribute, SUM(m.n * m.mean) / CAST(SUM(m.n) AS DOUBLE) AS mean
    FROM $moments AS m
    WHERE m.n > 0
    GROUP BY m.attribute
),
overall AS (
    SELECT
        m.attribute,
        SUM(m.n * (m.variance + (m.mean - g.mean) * (m.mean - g.mean)))
            / CAST(SUM(m.n) AS DOUBLE) AS variance
    FROM $moments AS m
    JOIN grand_mean AS g ON g.attribute = m.attribute
    WHERE m.n > 0
    GROUP BY m.attribute
),
floor_value AS (
    SELECT $var_smoothing * MAX(o.variance) AS epsilon FROM overall AS o
)
SELECT
    m.attribute AS attribute,
    c.class_index AS class_index,
    m.n AS n,
    m.mean AS mean,
    m.variance + f.epsilon AS variance
FROM $moments AS m
JOIN $classes AS c ON c.class_label = m.class_label
CROSS JOIN floor_value AS f
