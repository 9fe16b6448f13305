-- Expression: what a value never seen in training contributes to one class, natural log: the
-- smoothed zero-count probability ln((alpha + m/|X|) / (n_class + alpha*|X| + m)), or nothing
-- (0.0) when that is zero (alpha = m = 0), no value was seen (|X| = 0) or the denominator is
-- zero.
-- Placeholders: $n_class (the class's non-NULL rows of the attribute), $n_values (|X|, values
--   seen in training; >= 0), $alpha, $m (numbers >= 0). Bind compound expressions in
--   parentheses.
-- Output: log_prob (DOUBLE natural log).
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/learners/bayes/naive_bayes.py.
SELECT
    CASE
        WHEN $n_values = 0 OR $alpha + $m = 0 OR $n_class + $alpha * $n_values + $m = 0
            THEN CAST(0 AS DOUBLE)
        ELSE LN($alpha + $m / CAST($n_values AS DOUBLE))
            - LN(CAST($n_class AS DOUBLE) + $alpha * $n_values + $m)
    END AS log_prob
