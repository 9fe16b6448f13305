-- Expression: one row's term of the loss Platt's sigmoid minimises (scikit-learn's half
-- binomial loss of the raw prediction -z at the smoothed target t), ln(1 + exp(-z)) + t z
-- with z = A f + B, in the form that never overflows.
-- Placeholders: $z (DOUBLE), $t (the row's smoothed target).
-- Rendered by: warehouse_ml/models/learners/linear/svm/platt.py.
SELECT GREATEST(-$z, 0) + LN(1 + EXP(-ABS($z))) + $t * $z AS loss
