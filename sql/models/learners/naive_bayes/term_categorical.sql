-- Expression: log-probability contribution of one categorical attribute to one class.
-- NULL attribute value: nothing (0). Value unseen in training: the attribute's unseen term.
-- Seen value: its log-probability (NULL when that probability is 0: the class is impossible).
-- Placeholders: $value (the source column), $seen (the joined parameter row's value column,
--   NULL when there is no row), $unseen (unseen log-probability), $known (seen log-probability).
-- Rendered by: warehouse_ml/models/learners/naive_bayes_terms.py.
SELECT
    CASE
        WHEN $value IS NULL THEN CAST(0 AS DOUBLE)
        WHEN $seen IS NULL THEN $unseen
        ELSE $known
    END AS term
