-- The decision threshold of one class chosen from its ROC points (predict the class when its
-- probability >= threshold): the point with the smallest $objective, ties to the larger
-- threshold, among the points that are $eligible. The origin (threshold NULL: never predict
-- the class) is not a threshold and is left out.
-- Placeholders: $points (relation from select_roc_points.sql), $objective (DOUBLE expression
--   over p, smaller is better; p.positives is the class's positives), $eligible (boolean
--   expression over p).
-- Output columns: class_index, threshold, tp, fp, tpr, fpr, objective (DOUBLE); no row when
--   no point is eligible.
-- Rendered by: warehouse_ml/evaluation/metrics/threshold.py.
WITH counted AS (
    SELECT x.*, MAX(x.tp) OVER (PARTITION BY x.class_index) AS positives
    FROM $points AS x
)
SELECT
    p.class_index AS class_index,
    p.threshold AS threshold,
    p.tp AS tp,
    p.fp AS fp,
    p.tpr AS tpr,
    p.fpr AS fpr,
    CAST($objective AS DOUBLE) AS objective
FROM counted AS p
WHERE p.point > 0 AND $eligible
ORDER BY objective, p.threshold DESC
LIMIT 1
