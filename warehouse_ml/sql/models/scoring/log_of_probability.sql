-- Expression: natural log of a probability: -infinity for 0 (an impossible class, as ln 0),
-- NULL for NULL (a row with no probabilities).
-- Placeholders: $probability (DOUBLE in [0, 1], or NULL).
-- Rendered by: warehouse_ml/models/scoring/normalise.py.
SELECT
    CASE
        WHEN $probability > 0 THEN LN($probability)
        WHEN $probability = 0 THEN CAST('-Infinity' AS DOUBLE)
    END AS log_probability
