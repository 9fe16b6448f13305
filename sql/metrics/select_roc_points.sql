-- ROC curve points per class: point 0 is the origin (threshold NULL), then one point per
-- distinct score in decreasing order (predict the class when its score >= threshold).
-- tpr = tp / (tp + fn), fpr = fp / (fp + tn); NULL when the class has no positives
-- (resp. no negatives).
-- Placeholders: $groups (relation from select_score_groups.sql).
-- Output columns: class_index (INTEGER), point (BIGINT, 0-based), threshold (DOUBLE),
--   tp (BIGINT), fp (BIGINT), tpr (DOUBLE), fpr (DOUBLE). Ordered by class_index, point.
-- Rendered by: warehouse_ml/evaluation/metrics.py.
WITH groups AS (
    SELECT x.* FROM $groups AS x
),
totals AS (
    SELECT g.class_index AS class_index, SUM(g.positives) AS positives,
        SUM(g.negatives) AS negatives
    FROM groups AS g
    GROUP BY g.class_index
),
steps AS (
    SELECT
        g.class_index AS class_index,
        ROW_NUMBER() OVER (PARTITION BY g.class_index ORDER BY g.score DESC) AS point,
        g.score AS threshold,
        SUM(g.positives) OVER (
            PARTITION BY g.class_index ORDER BY g.score DESC
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS tp,
        SUM(g.negatives) OVER (
            PARTITION BY g.class_index ORDER BY g.score DESC
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS fp
    FROM groups AS g
),
points AS (
    SELECT t.class_index AS class_index, 0 AS point, CAST(NULL AS DOUBLE) AS threshold,
        0 AS tp, 0 AS fp
    FROM totals AS t
    UNION ALL
    SELECT s.class_index AS class_index, s.point AS point, s.threshold AS threshold,
        s.tp AS tp, s.fp AS fp
    FROM steps AS s
)
SELECT
    CAST(p.class_index AS INTEGER) AS class_index,
    CAST(p.point AS BIGINT) AS point,
    p.threshold AS threshold,
    CAST(p.tp AS BIGINT) AS tp,
    CAST(p.fp AS BIGINT) AS fp,
    p.tp / CAST(NULLIF(t.positives, 0) AS DOUBLE) AS tpr,
    p.fp / CAST(NULLIF(t.negatives, 0) AS DOUBLE) AS fpr
FROM points AS p
JOIN totals AS t ON t.class_index = p.class_index
ORDER BY class_index, point
