-- Distinct non-NULL values of each attribute in a count relation (e.g. per-fold counts: the
-- values seen in any partition), to plan pair-count blocks (pairs.plan_pair_blocks).
-- Placeholders: $counts (relation with attribute, value; e.g. counting.categorical_counts).
-- Output columns: attribute (VARCHAR), n_values (BIGINT distinct values).
-- Rendered by: warehouse_ml/stats/validation.py.
SELECT k.attribute AS attribute, COUNT(DISTINCT k.value) AS n_values
FROM $counts AS k
GROUP BY k.attribute
