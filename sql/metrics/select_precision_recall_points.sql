-- Recall-precision curve per class: point 0 is (recall 0, precision 1, threshold NULL) as in
-- scikit-learn, then one point per distinct score in decreasing order (predict the class when
-- its score >= threshold): precision = tp / (tp + fp), recall = tp / positives (NULL when the
-- class has no positives).
-- Placeholders: $groups (relation from select_score_groups.sql).
-- Output columns: class_index (INTEGER), point (BIGINT), threshold (DOUBLE), tp (BIGINT),
--   fp (BIGINT), "precision" (DOUBLE), recall (DOUBLE). Ordered by class_index, point.
-- Rendered by: warehouse_ml/evaluation/metrics.py.
WITH groups AS (
    SELECT x.* FROM $groups AS x
),
totals AS (
    SELECT g.class_index AS class_index, SUM(g.positives) AS positives
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
)
SELECT
    CAST(t.class_index AS INTEGER) AS class_index,
    CAST(0 AS BIGINT) AS point,
    CAST(NULL AS DOUBLE) AS threshold,
    CAST(0 AS BIGINT) AS tp,
    CAST(0 AS BIGINT) AS fp,
    CAST(1 AS DOUBLE) AS "precision",
    CAST(0 AS DOUBLE) AS recall
FROM totals AS t
UNION ALL
SELECT
    CAST(s.class_index AS INTEGER) AS class_index,
    CAST(s.point AS BIGINT) AS point,
    s.threshold AS threshold,
    CAST(s.tp AS BIGINT) AS tp,
    CAST(s.fp AS BIGINT) AS fp,
    s.tp / CAST(s.tp + s.fp AS DOUBLE) AS "precision",
    s.tp / CAST(NULLIF(t.positives, 0) AS DOUBLE) AS recall
FROM steps AS s
JOIN totals AS t ON t.class_index = s.class_index
ORDER BY class_index, point
