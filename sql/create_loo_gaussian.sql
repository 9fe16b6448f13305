-- Gaussian moments for leave-one-out scoring: per numeric attribute and class, the full-data
-- non-NULL count, mean and population variance, and the variance floor epsilon the fitted
-- model added (its floored variance minus the raw one).
-- Placeholders: $table (output), $gaussian (a model's gaussian table), $moments (attribute,
--   class_label, n, mean, variance: the raw moments it was fitted from), $classes (the model's
--   class table).
-- Output columns: attribute (VARCHAR), class_index (INTEGER), n (BIGINT), mean (DOUBLE),
--   variance (DOUBLE, population, unfloored), epsilon (DOUBLE); NULL mean/variance when n = 0.
CREATE TABLE $table AS
SELECT
    g.attribute AS attribute,
    g.class_index AS class_index,
    g.n AS n,
    g.mean AS mean,
    m.variance AS variance,
    g.variance - m.variance AS epsilon
FROM $gaussian AS g
JOIN $classes AS c ON c.class_index = g.class_index
JOIN $moments AS m ON m.attribute = g.attribute AND m.class_label = c.class_label
