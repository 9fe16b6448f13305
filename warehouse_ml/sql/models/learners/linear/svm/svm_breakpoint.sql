-- Expression: the t at which a row enters or leaves the margin of a class's problem along the
-- line w + t d of the linear SVM's line search: y (o + t delta) = 1, so
-- (1 - y o) / (y delta); NULL when delta = 0 (the row's margin does not move) or when the row
-- weighs nothing in the problem (a Platt fold's own rows in that fold's SVM).
-- Placeholders: $weight (the row's weight in the problem, DOUBLE), $target (1 or -1), $score
--   (the row's decision value o at w), $delta (the row's decision value of d).
-- Rendered by: warehouse_ml/models/learners/linear/svm/sums.py.
SELECT CASE
    WHEN $delta <> 0 AND $weight > 0 THEN (1 - $target * $score) / ($target * $delta)
END AS breakpoint
