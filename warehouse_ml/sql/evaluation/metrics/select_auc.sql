-- Area under the ROC curve per class, rank-based: the Mann-Whitney statistic
-- U = sum over positives of (negatives scored lower + half the negatives scored equal), which
-- equals the trapezoid-rule area under the ROC points. The negatives scored lower than a
-- point are all_negatives - fp. 2U is summed as an exact integer, so the result does not
-- depend on the order of aggregation. AUC = U / (positives * negatives).
-- Placeholders: $counts (relation from select_cumulative_counts.sql), $count_type (BIGINT
--   rows, or DOUBLE summed weights of a weighted measure).
-- Output columns: class_index (INTEGER), positives, negatives ($count_type),
--   mann_whitney_u (DOUBLE), auc (DOUBLE in [0, 1]; NULL without positives or negatives).
-- Ordered by class_index.
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
WITH sums AS (
    SELECT
        c.class_index AS class_index,
        SUM(c.positives) AS positives,
        SUM(c.negatives) AS negatives,
        SUM(c.positives * (2 * (c.all_negatives - c.fp) + c.negatives)) AS twice_u
    FROM $counts AS c
    GROUP BY c.class_index
)
SELECT
    CAST(s.class_index AS INTEGER) AS class_index,
    CAST(s.positives AS $count_type) AS positives,
    CAST(s.negatives AS $count_type) AS negatives,
    CAST(s.twice_u AS DOUBLE) / 2 AS mann_whitney_u,
    CAST(s.twice_u AS DOUBLE)
        / (2 * CAST(NULLIF(s.positives, 0) AS DOUBLE) * NULLIF(s.negatives, 0)) AS auc
FROM sums AS s
ORDER BY class_index
