-- ROC curve points per class: point 0 is the origin (threshold NULL), then one point per
-- distinct score in decreasing order (predict the class when its score >= threshold).
-- tpr = tp / (tp + fn), fpr = fp / (fp + tn); NULL when the class has no positives
-- (resp. no negatives).
-- Placeholders: $counts (relation from select_cumulative_counts.sql), $count_type (BIGINT
--   rows, or DOUBLE summed weights of a weighted measure).
-- Output columns: class_index (INTEGER), point (BIGINT, 0-based), threshold (DOUBLE),
--   tp, fp ($count_type), tpr (DOUBLE), fpr (DOUBLE). Ordered by class_index, point.
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
WITH counts AS (
    SELECT x.* FROM $counts AS x
),
points AS (
    SELECT c.class_index AS class_index, 0 AS point, CAST(NULL AS DOUBLE) AS threshold,
        0 AS tp, 0 AS fp, c.all_positives AS positives, c.all_negatives AS negatives
    FROM counts AS c
    WHERE c.point = 1
    UNION ALL
    SELECT c.class_index AS class_index, c.point AS point, c.threshold AS threshold,
        c.tp AS tp, c.fp AS fp, c.all_positives AS positives, c.all_negatives AS negatives
    FROM counts AS c
)
SELECT
    CAST(p.class_index AS INTEGER) AS class_index,
    CAST(p.point AS BIGINT) AS point,
    p.threshold AS threshold,
    CAST(p.tp AS $count_type) AS tp,
    CAST(p.fp AS $count_type) AS fp,
    p.tp / CAST(NULLIF(p.positives, 0) AS DOUBLE) AS tpr,
    p.fp / CAST(NULLIF(p.negatives, 0) AS DOUBLE) AS fpr
FROM points AS p
ORDER BY class_index, point
