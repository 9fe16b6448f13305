-- Expression: smoothed natural-log prior of one class, ln((n + prior_alpha) / (N + prior_alpha K));
-- NULL ("impossible") when the numerator is zero.
-- Placeholders: $n (rows of the class), $n_total (N, rows with a target), $prior_alpha
--   (number >= 0), $n_classes (K). Bind compound expressions in parentheses.
-- Output: log_prior (DOUBLE natural log, or NULL).
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/learners/bayes/naive_bayes_terms.py.
SELECT
    CASE
        WHEN CAST($n AS DOUBLE) + $prior_alpha = 0 THEN NULL
        ELSE LN(CAST($n AS DOUBLE) + $prior_alpha)
            - LN(CAST($n_total AS DOUBLE) + $prior_alpha * $n_classes)
    END AS log_prior
