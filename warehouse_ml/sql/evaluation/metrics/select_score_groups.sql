-- Rows with the same class and score form one group: ties are one step of every curve.
-- Placeholders: $scores (relation from select_class_scores.sql or a UNION ALL of them),
--   $count_type (BIGINT rows, or DOUBLE summed weights of a weighted measure).
-- Output columns: class_index (INTEGER), score (DOUBLE, distinct within a class),
--   positives, negatives ($count_type: rows, or their summed weights).
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
SELECT
    s.class_index AS class_index,
    s.score AS score,
    CAST(SUM(s.positive * s.weight) AS $count_type) AS positives,
    CAST(SUM((1 - s.positive) * s.weight) AS $count_type) AS negatives
FROM $scores AS s
GROUP BY s.class_index, s.score
