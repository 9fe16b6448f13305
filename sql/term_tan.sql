-- Expression: log-probability contribution of one TAN attribute with a parent, to one class.
-- NULL attribute value: nothing (0). No conditional-table row for (value, parent value) --
-- the parent is NULL, or the value or the parent value was not seen in training: the
-- attribute's class-only term P(value | class) (which itself handles unseen values as Naive
-- Bayes does). Otherwise log P(value | class, parent value) (NULL when that is 0: impossible).
-- Placeholders: $value (the attribute's value), $found (the joined conditional row's value
--   column, NULL when there is no row), $known (its log-probability for the class),
--   $fallback (the class-only term for the class).
SELECT
    CASE
        WHEN $value IS NULL THEN CAST(0 AS DOUBLE)
        WHEN $found IS NULL THEN $fallback
        ELSE $known
    END AS term
