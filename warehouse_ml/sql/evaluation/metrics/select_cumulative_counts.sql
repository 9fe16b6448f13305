-- Cumulative counts per class over decreasing score thresholds, the one base of the ROC and
-- recall-precision curves, the AUC and the average precision: one row per (class, distinct
-- score), numbered from the largest score down. Scores are distinct within a class
-- (select_score_groups.sql), so ordering by score within a class is a total order and the
-- running sums are the same on every run and engine.
-- Placeholders: $groups (relation from select_score_groups.sql).
-- Output columns: class_index (INTEGER), point (BIGINT, 1 = the largest score), threshold
--   (DOUBLE, the score: predict the class when its score >= threshold), positives, negatives
--   (BIGINT, rows of that score), tp, fp (positives and negatives scored >= threshold),
--   all_positives, all_negatives (the class's positives and negatives over every score).
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
SELECT
    g.class_index AS class_index,
    ROW_NUMBER() OVER (PARTITION BY g.class_index ORDER BY g.score DESC) AS point,
    g.score AS threshold,
    g.positives AS positives,
    g.negatives AS negatives,
    SUM(g.positives) OVER (
        PARTITION BY g.class_index ORDER BY g.score DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS tp,
    SUM(g.negatives) OVER (
        PARTITION BY g.class_index ORDER BY g.score DESC
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
    ) AS fp,
    SUM(g.positives) OVER (PARTITION BY g.class_index) AS all_positives,
    SUM(g.negatives) OVER (PARTITION BY g.class_index) AS all_negatives
FROM $groups AS g
