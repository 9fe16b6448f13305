-- Expression: smoothed natural-log probability of one value given one class,
-- ln((n + alpha + m/|X|) / (n_class + alpha*|X| + m)). A zero denominator (no non-NULL value
-- of the attribute in the class, alpha = m = 0) gives the uniform -ln|X|; a zero numerator
-- gives NULL ("impossible", see scoring.py).
-- Placeholders: $n (rows with the value and class), $n_class (the class's non-NULL rows of the
--   attribute), $n_values (|X|, values the attribute takes in training; >= 1), $alpha, $m
--   (numbers >= 0). Bind compound expressions in parentheses.
-- Output: log_prob (DOUBLE natural log, or NULL).
-- Rendered by: warehouse_ml/evaluation/loo.py, warehouse_ml/models/learners/bayes/naive_bayes.py.
SELECT
    CASE
        WHEN $n_class + $alpha * $n_values + $m = 0 THEN -LN(CAST($n_values AS DOUBLE))
        WHEN $n + $alpha + $m / CAST($n_values AS DOUBLE) = 0 THEN NULL
        ELSE LN(CAST($n AS DOUBLE) + $alpha + $m / CAST($n_values AS DOUBLE))
            - LN(CAST($n_class AS DOUBLE) + $alpha * $n_values + $m)
    END AS log_prob
