-- Recall-precision curve per class: point 0 is (recall 0, precision 1, threshold NULL) as in
-- scikit-learn, then one point per distinct score in decreasing order (predict the class when
-- its score >= threshold): precision = tp / (tp + fp), recall = tp / positives (NULL when the
-- class has no positives).
-- Placeholders: $counts (relation from select_cumulative_counts.sql), $count_type (BIGINT
--   rows, or DOUBLE summed weights of a weighted measure).
-- Output columns: class_index (INTEGER), point (BIGINT), threshold (DOUBLE), tp,
--   fp ($count_type), "precision" (DOUBLE), recall (DOUBLE). Ordered by class_index, point.
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
WITH counts AS (
    SELECT x.* FROM $counts AS x
)
SELECT
    CAST(c.class_index AS INTEGER) AS class_index,
    CAST(0 AS BIGINT) AS point,
    CAST(NULL AS DOUBLE) AS threshold,
    CAST(0 AS $count_type) AS tp,
    CAST(0 AS $count_type) AS fp,
    CAST(1 AS DOUBLE) AS "precision",
    CAST(0 AS DOUBLE) AS recall
FROM counts AS c
WHERE c.point = 1
UNION ALL
SELECT
    CAST(c.class_index AS INTEGER) AS class_index,
    CAST(c.point AS BIGINT) AS point,
    c.threshold AS threshold,
    CAST(c.tp AS $count_type) AS tp,
    CAST(c.fp AS $count_type) AS fp,
    c.tp / CAST(c.tp + c.fp AS DOUBLE) AS "precision",
    c.tp / CAST(NULLIF(c.all_positives, 0) AS DOUBLE) AS recall
FROM counts AS c
ORDER BY class_index, point
