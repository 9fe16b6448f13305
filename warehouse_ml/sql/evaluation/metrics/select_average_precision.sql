-- Average precision per class, scikit-learn's definition: sum over the distinct scores, in
-- decreasing order, of (recall gain) * precision = (positives at that score / all positives)
-- * precision there. The terms are added by a running sum in point order, so the result is
-- deterministic; the last point holds the whole sum.
-- Placeholders: $counts (relation from select_cumulative_counts.sql), $count_type (BIGINT
--   rows, or DOUBLE summed weights of a weighted measure).
-- Output columns: class_index (INTEGER), positives ($count_type), average_precision (DOUBLE;
--   NULL without positives). Ordered by class_index.
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
WITH running AS (
    SELECT
        c.class_index AS class_index,
        SUM(c.positives * (c.tp / CAST(c.tp + c.fp AS DOUBLE))) OVER (
            PARTITION BY c.class_index ORDER BY c.point
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS total,
        c.all_positives AS positives,
        ROW_NUMBER() OVER (PARTITION BY c.class_index ORDER BY c.point DESC) AS from_end
    FROM $counts AS c
)
SELECT
    CAST(r.class_index AS INTEGER) AS class_index,
    CAST(r.positives AS $count_type) AS positives,
    r.total / CAST(NULLIF(r.positives, 0) AS DOUBLE) AS average_precision
FROM running AS r
WHERE r.from_end = 1
ORDER BY class_index
