-- Expression: Gaussian log-density of a numeric attribute for one class, natural log:
-- -0.5 ln(2 pi var) - (x - mean)^2 / (2 var). NULL value, or a class with no non-NULL value of
-- the attribute: nothing (0).
-- Placeholders: $value (the source column, cast to DOUBLE), $mean, $variance.
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/learners/bayes/naive_bayes_terms.py, warehouse_ml/models/keyed_terms/literal_terms.py.
SELECT
    CASE
        WHEN $value IS NULL OR $mean IS NULL THEN CAST(0 AS DOUBLE)
        ELSE -0.5 * LN(2 * PI() * $variance)
            - ($value - $mean) * ($value - $mean) / (2 * $variance)
    END AS term
