-- Gaussian parameters per numeric attribute and class, with scikit-learn's variance floor:
-- variance = population variance + var_smoothing * (largest overall variance of any numeric
-- attribute), the overall variance pooled exactly from the per-class moments. Each model
-- partition (column wml_part) is floored by its own largest variance.
-- A weighted fit's moments are weighted, while its floor is the unweighted variance of the data,
-- as scikit-learn's GaussianNB(sample_weight=...) takes it: the floor is pooled from
-- $floor_moments, the CTE tagged itself (the same moments) or the unweighted moments.
-- Placeholders: $table (output), $moments (attribute, class_label, n, mean, variance, wml_part),
--   $floor_moments (tagged, or a relation of the same columns),
--   $classes (the class table), $var_smoothing (number >= 0).
-- Output columns: wml_part (INTEGER), attribute (VARCHAR), class_index (INTEGER),
--   n (BIGINT non-NULL rows), mean (DOUBLE), variance (DOUBLE, floored; NULL mean/variance
--   when n = 0), population_variance (DOUBLE, before the floor: what an update pools with a
--   batch's moments, models/living/updating.py).
-- Rendered by: warehouse_ml/models/learners/bayes/naive_bayes.py.
CREATE TABLE $table AS
WITH tagged AS (
    SELECT m.wml_part, m.attribute, m.class_label, m.n, m.mean, m.variance
    FROM $moments AS m
),
floored AS (
    SELECT m.wml_part, m.attribute, m.n, m.mean, m.variance FROM $floor_moments AS m
),
grand_mean AS (
    SELECT m.wml_part, m.attribute, SUM(m.n * m.mean) / CAST(SUM(m.n) AS DOUBLE) AS mean
    FROM floored AS m
    WHERE m.n > 0
    GROUP BY m.wml_part, m.attribute
),
overall AS (
    SELECT
        m.wml_part,
        m.attribute,
        SUM(m.n * (m.variance + (m.mean - g.mean) * (m.mean - g.mean)))
            / CAST(SUM(m.n) AS DOUBLE) AS variance
    FROM floored AS m
    JOIN grand_mean AS g ON g.wml_part = m.wml_part AND g.attribute = m.attribute
    WHERE m.n > 0
    GROUP BY m.wml_part, m.attribute
),
floor_value AS (
    SELECT o.wml_part, $var_smoothing * MAX(o.variance) AS epsilon
    FROM overall AS o
    GROUP BY o.wml_part
)
SELECT
    m.wml_part AS wml_part,
    m.attribute AS attribute,
    c.class_index AS class_index,
    m.n AS n,
    m.mean AS mean,
    m.variance + f.epsilon AS variance,
    m.variance AS population_variance
FROM tagged AS m
JOIN $classes AS c ON c.wml_part = m.wml_part AND c.class_label = m.class_label
LEFT JOIN floor_value AS f ON f.wml_part = m.wml_part
