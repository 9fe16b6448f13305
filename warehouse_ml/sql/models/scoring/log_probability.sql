-- Expression: natural-log posterior of one class: joint - max - ln(total); -infinity when the
-- class is impossible (a NULL joint: a zero-probability term, only with alpha = 0) while
-- another class is possible, as ln 0; NULL when every class is impossible (total 0).
-- Placeholders: $joint, $max, $total (as in probability.sql).
-- Rendered by: warehouse_ml/models/scoring/normalise.py.
SELECT
    CASE
        WHEN $joint IS NULL AND $total > 0 THEN CAST('-Infinity' AS DOUBLE)
        ELSE $joint - $max - LN(NULLIF($total, 0))
    END AS log_probability
