-- Expression: log-probability contribution of one TAN attribute with a parent, to one class
-- (tan.py), from the sparse conditional tables. NULL attribute value: nothing (0). A (value,
-- parent value) pair counted in training (a cpt row): log P(value | class, parent value) (NULL
-- when that is 0: impossible). A value seen in training (a categorical row) never counted with
-- a parent value that was counted with the attribute (a cpt_parent row): that parent value's
-- zero-count log P(value | class, parent value). Otherwise -- the parent is NULL, or the value
-- or the parent value was not seen with the attribute in training -- the attribute's
-- class-only term P(value | class) (which itself handles unseen values as Naive Bayes does).
-- Placeholders: $value (the attribute's value), $found (the joined cpt row's value column,
--   NULL when there is no row), $known (its log-probability for the class), $seen (the joined
--   categorical row's value column, NULL when the value was not seen), $parent_found (the
--   joined cpt_parent row's parent_value column, NULL when there is no row), $parent_known
--   (its log-probability for the class), $fallback (the class-only term for the class).
-- Rendered by: warehouse_ml/models/learners/tan_terms.py.
SELECT
    CASE
        WHEN $value IS NULL THEN CAST(0 AS DOUBLE)
        WHEN $found IS NOT NULL THEN $known
        WHEN $seen IS NOT NULL AND $parent_found IS NOT NULL THEN $parent_known
        ELSE $fallback
    END AS term
