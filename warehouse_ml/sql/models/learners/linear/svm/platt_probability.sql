-- Expression: Platt's sigmoid 1 / (1 + exp(z)) of z = A f + B, in the form that never
-- overflows: exp(-z) / (1 + exp(-z)) when z >= 0.
-- Placeholders: $z (DOUBLE).
-- Rendered by: warehouse_ml/models/learners/linear/svm/platt.py.
SELECT CASE
    WHEN $z >= 0 THEN EXP(-$z) / (1 + EXP(-$z))
    ELSE 1 / (1 + EXP($z))
END AS probability
