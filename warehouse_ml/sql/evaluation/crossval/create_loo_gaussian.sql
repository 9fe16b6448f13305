-- Gaussian moments for leave-one-out scoring: per numeric attribute and class, the full-data
-- non-NULL count, mean and population variance, the variance floor epsilon the fitted model
-- added (its floored variance minus the raw one), and the class's extreme value (the one
-- farthest from its mean) with the exact moments of the class's other values (for the row
-- holding it, whose own downdate would cancel every digit: loo_mean.sql, loo_variance.sql).
-- Placeholders: $table (output), $gaussian (a model's gaussian table), $moments (attribute,
--   class_label, n, mean, variance, extreme: the raw moments it was fitted from),
--   $rest_moments (the same of the rows without each class's extreme value,
--   moments.without_extremes), $classes (the model's class table).
-- Output columns: wml_part (INTEGER, the model's: 0), attribute (VARCHAR), class_index (INTEGER), n (BIGINT), mean (DOUBLE),
--   variance (DOUBLE, population, unfloored), epsilon (DOUBLE), extreme (DOUBLE), n_rest
--   (BIGINT values other than the extreme), mean_rest, variance_rest (DOUBLE, their moments);
--   NULL means/variances when there are no values.
-- Rendered by: warehouse_ml/evaluation/loo.py.
CREATE TABLE $table AS
SELECT
    g.wml_part AS wml_part,
    g.attribute AS attribute,
    g.class_index AS class_index,
    g.n AS n,
    g.mean AS mean,
    m.variance AS variance,
    g.variance - m.variance AS epsilon,
    m.extreme AS extreme,
    r.n AS n_rest,
    r.mean AS mean_rest,
    r.variance AS variance_rest
FROM $gaussian AS g
JOIN $classes AS c ON c.class_index = g.class_index
JOIN $moments AS m ON m.attribute = g.attribute AND m.class_label = c.class_label
JOIN $rest_moments AS r ON r.attribute = g.attribute AND r.class_label = c.class_label
