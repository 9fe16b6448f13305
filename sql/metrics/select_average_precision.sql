-- Average precision per class, scikit-learn's definition: sum over the distinct scores, in
-- decreasing order, of (recall gain) * precision = (positives at that score / all positives)
-- * precision there. The terms are added by an ordered running sum, so the result is
-- deterministic.
-- Placeholders: $groups (relation from select_score_groups.sql).
-- Output columns: class_index (INTEGER), positives (BIGINT), average_precision (DOUBLE;
--   NULL without positives). Ordered by class_index.
-- Rendered by: warehouse_ml/evaluation/metrics.py.
WITH groups AS (
    SELECT x.* FROM $groups AS x
),
steps AS (
    SELECT
        g.class_index AS class_index,
        g.score AS score,
        g.positives AS positives,
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
running AS (
    SELECT
        s.class_index AS class_index,
        SUM(s.positives * (s.tp / CAST(s.tp + s.fp AS DOUBLE))) OVER (
            PARTITION BY s.class_index ORDER BY s.score DESC
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        SUM(s.positives) OVER (
            PARTITION BY s.class_index ORDER BY s.score DESC
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS positives,
        ROW_NUMBER() OVER (PARTITION BY s.class_index ORDER BY s.score) AS from_end
    FROM steps AS s
)
SELECT
    CAST(r.class_index AS INTEGER) AS class_index,
    CAST(r.positives AS BIGINT) AS positives,
    r.total / CAST(NULLIF(r.positives, 0) AS DOUBLE) AS average_precision
FROM running AS r
WHERE r.from_end = 1
ORDER BY class_index
