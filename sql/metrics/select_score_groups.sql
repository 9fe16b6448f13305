-- Rows with the same class and score form one group: ties are one step of every curve.
-- Placeholders: $scores (relation from select_class_scores.sql or a UNION ALL of them).
-- Output columns: class_index (INTEGER), score (DOUBLE, distinct within a class),
--   positives (BIGINT), negatives (BIGINT).
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
SELECT
    s.class_index AS class_index,
    s.score AS score,
    CAST(SUM(s.positive) AS BIGINT) AS positives,
    CAST(COUNT(*) - SUM(s.positive) AS BIGINT) AS negatives
FROM $scores AS s
GROUP BY s.class_index, s.score
