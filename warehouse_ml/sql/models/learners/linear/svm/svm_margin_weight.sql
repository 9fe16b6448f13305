-- Expression: one row's weight in the squared hinge loss of a class's problem: the row's
-- weight when it is a margin row (target * decision value < 1), else 0.
-- Placeholders: $weight (the row's weight, DOUBLE; 1 unweighted), $target (1 or -1),
--   $score (the row's decision value at the current coefficients).
-- Rendered by: warehouse_ml/models/learners/linear/svm/sums.py.
SELECT CASE WHEN $target * $score < 1 THEN $weight ELSE CAST(0 AS DOUBLE) END AS margin_weight
