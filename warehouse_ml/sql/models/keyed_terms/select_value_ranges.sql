-- Range and number of the seen values of integer-coded attributes, from which a model's lookup
-- table is laid out (naive_bayes.lookup_layout).
-- Placeholders: $categorical (a model's categorical table: value holds the integer as text),
--   $attributes (a relation with column attribute: the integer-coded attributes).
-- Output columns: attribute (VARCHAR), low (BIGINT), high (BIGINT), n_values (BIGINT: distinct
--   seen values; the values are contiguous when n_values = high - low + 1).
-- Rendered by: warehouse_ml/models/keyed_terms/lookup.py.
SELECT
    p.attribute AS attribute,
    MIN(CAST(p.value AS BIGINT)) AS low,
    MAX(CAST(p.value AS BIGINT)) AS high,
    COUNT(DISTINCT p.value) AS n_values
FROM $categorical AS p
JOIN $attributes AS a ON a.attribute = p.attribute
GROUP BY p.attribute
