-- Area under the ROC curve per class, rank-based: the Mann-Whitney statistic
-- U = sum over positives of (negatives scored lower + half the negatives scored equal), which
-- equals the trapezoid-rule area under the ROC points. 2U is summed as an exact integer, so the
-- result does not depend on the order of aggregation. AUC = U / (positives * negatives).
-- Placeholders: $groups (relation from select_score_groups.sql).
-- Output columns: class_index (INTEGER), positives (BIGINT), negatives (BIGINT),
--   mann_whitney_u (DOUBLE), auc (DOUBLE in [0, 1]; NULL without positives or negatives).
-- Ordered by class_index.
-- Rendered by: warehouse_ml/evaluation/metrics.py.
WITH groups AS (
    SELECT x.* FROM $groups AS x
),
ranked AS (
    SELECT
        g.class_index AS class_index,
        g.positives AS positives,
        g.negatives AS negatives,
        SUM(g.negatives) OVER (
            PARTITION BY g.class_index ORDER BY g.score
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) - g.negatives AS negatives_below
    FROM groups AS g
),
sums AS (
    SELECT
        r.class_index AS class_index,
        SUM(r.positives) AS positives,
        SUM(r.negatives) AS negatives,
        SUM(r.positives * (2 * r.negatives_below + r.negatives)) AS twice_u
    FROM ranked AS r
    GROUP BY r.class_index
)
SELECT
    CAST(s.class_index AS INTEGER) AS class_index,
    CAST(s.positives AS BIGINT) AS positives,
    CAST(s.negatives AS BIGINT) AS negatives,
    CAST(s.twice_u AS DOUBLE) / 2 AS mann_whitney_u,
    CAST(s.twice_u AS DOUBLE)
        / (2 * CAST(NULLIF(s.positives, 0) AS DOUBLE) * NULLIF(s.negatives, 0)) AS auc
FROM sums AS s
ORDER BY class_index
