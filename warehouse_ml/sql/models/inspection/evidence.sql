-- Expression: the weight of evidence of one part of the joint log score (an attribute's term,
-- or the prior) for a class against another, in nats: term(class) - term(against), i.e.
-- ln P(x | c) - ln P(x | c') for a Naive Bayes attribute, ln P(x | parent value, c) -
-- ln P(x | parent value, c') for a TAN attribute, ln P(c) - ln P(c') for the prior. A NULL
-- term is a zero probability (only with alpha = 0): +Infinity when only the against class's
-- term is NULL, -Infinity when only the class's is, NULL when both are (no evidence either
-- way); both are NULL when the row has no class or no against class (every class impossible).
-- Placeholders: $term (the class's term), $against (the against class's term).
-- Rendered by: warehouse_ml/models/inspection/evidence.py.
SELECT
    CASE
        WHEN $term IS NULL AND $against IS NULL THEN CAST(NULL AS DOUBLE)
        WHEN $against IS NULL THEN CAST('Infinity' AS DOUBLE)
        WHEN $term IS NULL THEN CAST('-Infinity' AS DOUBLE)
        ELSE $term - $against
    END AS evidence
