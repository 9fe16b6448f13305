-- Expression: leave-one-out log-probability contribution of one categorical attribute to one
-- class: the row is scored with the counts of every OTHER row. NULL value: nothing (0). A value
-- seen only in this row is unseen without it: the unseen term (with |X| - 1 values), or
-- nothing when no value of the attribute is left. Otherwise the seen term (counts minus own).
-- Placeholders: $value (the row's attribute value), $value_total (rows with that value, all
--   classes, the row included), $n_values (|X| of the full data), $unseen (unseen_log_prob.sql
--   bound to n_class - own and |X| - 1), $seen (smoothed_log_prob.sql bound to n - own,
--   n_class - own and |X|).
-- Output: term (DOUBLE natural log, NULL when the class is impossible).
SELECT
    CASE
        WHEN $value IS NULL THEN CAST(0 AS DOUBLE)
        WHEN $value_total = 1 AND $n_values = 1 THEN CAST(0 AS DOUBLE)
        WHEN $value_total = 1 THEN $unseen
        ELSE $seen
    END AS term
