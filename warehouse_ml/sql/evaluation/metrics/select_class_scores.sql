-- One class's scores for ranking measures (ROC, PR, AUC, lift): rows with a NULL probability
-- are left out.
-- Placeholders: $predictions (relation from select_prepared_predictions.sql), $class_index
--   (INTEGER), $score (name of that class's probability column, wml_p_<i>).
-- Output columns: class_index (INTEGER), score (DOUBLE), positive (INTEGER 1 when the true
--   class is this class, else 0), weight (the row's weight: 1, or DOUBLE).
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
SELECT
    CAST($class_index AS INTEGER) AS class_index,
    p.$score AS score,
    CASE WHEN p.wml_truth = $class_index THEN 1 ELSE 0 END AS positive,
    p.wml_weight AS weight
FROM $predictions AS p
WHERE p.$score IS NOT NULL
