-- Training counts of one cross-validation fold: the counts of every other partition summed,
-- i.e. the total minus that fold, read from the per-partition counts (no scan of the source).
-- Placeholders: $counts (relation with wml_part, attribute, value, class_label, n),
--   $partition (the held-out partition value).
-- Output columns: attribute (VARCHAR), value (VARCHAR), class_label (VARCHAR), n (BIGINT rows).
SELECT k.attribute AS attribute, k.value AS value, k.class_label AS class_label, SUM(k.n) AS n
FROM $counts AS k
WHERE k.wml_part <> $partition
GROUP BY k.attribute, k.value, k.class_label
HAVING SUM(k.n) > 0
