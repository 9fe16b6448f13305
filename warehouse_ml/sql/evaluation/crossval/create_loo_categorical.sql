-- Leave-one-out categorical parameters: for every (attribute, seen value, class), the
-- log-probability a row with that value gets for that class when the row itself is left out of
-- the counts, in the two cases that can occur: the row is of another class (own = 0) or of this
-- class (own = 1: n_xc - 1 and n_c - 1). A value seen in one row only is unseen without it: the
-- unseen term with |X| - 1 values (nothing when no value is left).
-- Placeholders: $table (output), $categorical and $unseen (the full-data model's tables),
--   $unseen_other (unseen_log_prob.sql over u.n_class and (u.n_values - 1)), $seen_own
--   (smoothed_log_prob.sql over (k.n - 1), (u.n_class - 1), u.n_values), $unseen_own
--   (unseen_log_prob.sql over (u.n_class - 1), (u.n_values - 1)); the alpha and m bound there.
-- Output columns: wml_part (INTEGER, the model's: 0), attribute (VARCHAR), value (VARCHAR), class_index (INTEGER),
--   log_prob_other (DOUBLE: k.log_prob itself for a value seen in other rows too),
--   log_prob_own (DOUBLE; NULL where n_xc = 0: no row with the value is of the class, so it
--   is never used). NULL log-probabilities mean "impossible", as in the model's tables.
-- Rendered by: warehouse_ml/evaluation/loo.py.
CREATE TABLE $table AS
WITH value_totals AS (
    SELECT k.attribute, k.value, SUM(k.n) AS n_value
    FROM $categorical AS k
    GROUP BY k.attribute, k.value
)
SELECT
    k.wml_part AS wml_part,
    k.attribute AS attribute,
    k.value AS value,
    k.class_index AS class_index,
    CASE
        WHEN v.n_value = 1 AND u.n_values = 1 THEN CAST(0 AS DOUBLE)
        WHEN v.n_value = 1 THEN $unseen_other
        ELSE k.log_prob
    END AS log_prob_other,
    CASE
        WHEN k.n = 0 THEN CAST(NULL AS DOUBLE)
        WHEN v.n_value = 1 AND u.n_values = 1 THEN CAST(0 AS DOUBLE)
        WHEN v.n_value = 1 THEN $unseen_own
        ELSE $seen_own
    END AS log_prob_own
FROM $categorical AS k
JOIN $unseen AS u ON u.attribute = k.attribute AND u.class_index = k.class_index
JOIN value_totals AS v ON v.attribute = k.attribute AND v.value = k.value
