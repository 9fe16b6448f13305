-- ZeroR's class probabilities of one fitted model (partition 0), in class order.
-- Placeholders: $priors (the model's priors table, create_zero_rule_priors.sql).
-- Output columns: class_index (INTEGER), probability (DOUBLE).
-- Rendered by: tests/extra_families/zero_rule/zero_rule.py.
SELECT p.class_index, p.probability
FROM $priors AS p
WHERE p.wml_part = 0
ORDER BY p.class_index
