-- Pair counts of one cross-validation fold's training rows: the pair counts of every other
-- partition summed, i.e. the total minus that fold, read from the per-partition pair counts (no
-- scan of the source). Cells whose rows all lie in the held-out partition are absent, as in a
-- count of the training rows alone.
-- Placeholders: $counts (relation with wml_part, attribute_i, attribute_j, value_i, value_j,
--   class_label, n; e.g. pairs.pair_counts_query with a partition), $partition (the held-out
--   partition value).
-- Output columns: attribute_i (VARCHAR), attribute_j (VARCHAR), value_i (VARCHAR), value_j
--   (VARCHAR), class_label (VARCHAR), n (BIGINT rows, > 0).
SELECT
    k.attribute_i AS attribute_i,
    k.attribute_j AS attribute_j,
    k.value_i AS value_i,
    k.value_j AS value_j,
    k.class_label AS class_label,
    SUM(k.n) AS n
FROM $counts AS k
WHERE k.wml_part <> $partition
GROUP BY k.attribute_i, k.attribute_j, k.value_i, k.value_j, k.class_label
HAVING SUM(k.n) > 0
