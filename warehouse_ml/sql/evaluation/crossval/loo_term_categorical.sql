-- Expression: leave-one-out log-probability contribution of one categorical attribute to one
-- class: the row is scored with the counts of every OTHER row (create_loo_categorical.sql).
-- NULL value: nothing (0). Otherwise the value's log-probability for the case of the row: of
-- this class (own = 1) or not; NULL when that makes the class impossible.
-- Placeholders: $value (the row's attribute value), $own (1 when the row is of this class),
--   $other, $own_log_prob (the joined log_prob_other / log_prob_own of the value and class).
-- Output: term (DOUBLE natural log, or NULL).
-- Rendered by: warehouse_ml/evaluation/loo.py.
SELECT
    CASE
        WHEN $value IS NULL THEN CAST(0 AS DOUBLE)
        WHEN $own = 1 THEN $own_log_prob
        ELSE $other
    END AS term
