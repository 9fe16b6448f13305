-- Expression: (p_c - [true class = c])^2, one class's part of the Brier score.
-- Placeholders: $probability (DOUBLE p_c), $truth (true class index), $class_index (c).
-- Rendered by: warehouse_ml/evaluation/metrics/scoring_rules.py.
SELECT
    ($probability - CASE WHEN $truth = $class_index THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END)
    * ($probability - CASE WHEN $truth = $class_index THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END)
    AS term
