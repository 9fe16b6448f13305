-- Expression: TAN's smoothed natural-log probability of a value given a class and a parent
-- value (Weka SimpleEstimator), ln((n + alpha) / (n_parent + alpha*|X|)). A zero denominator
-- (no row of that parent value and class, alpha = 0) gives the uniform -ln|X|; a zero numerator
-- (n = 0, alpha = 0) gives NULL ("impossible", see scoring.py). Shared by the conditional
-- table of counted (value, parent value) pairs and the per-parent-value row of a value never
-- counted with that parent value (n = 0), so both are computed by the same operations
-- (tan.py, TAN._log_prob).
-- Placeholders: $n (rows with the value, parent value and class), $n_parent (rows with the
--   parent value and class where the attribute is not NULL), $n_values (|X|, values the
--   attribute takes in training; >= 1), $alpha (number >= 0).
-- Output: log_prob (DOUBLE natural log, or NULL).
-- Rendered by: warehouse_ml/models/learners/bayes/tan.py.
SELECT
    CASE
        WHEN $n_parent + $alpha * $n_values = 0 THEN -LN(CAST($n_values AS DOUBLE))
        WHEN $n + $alpha = 0 THEN NULL
        ELSE LN(CAST($n AS DOUBLE) + $alpha) - LN(CAST($n_parent AS DOUBLE) + $alpha * $n_values)
    END AS log_prob
