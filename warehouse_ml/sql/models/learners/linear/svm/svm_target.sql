-- Expression: one row's target in class k's one-vs-rest problem of the linear SVM: 1 when the
-- row's class is k, else -1.
-- Placeholders: $class_index (the row's class index), $k (integer).
-- Rendered by: warehouse_ml/models/learners/linear/svm/sums.py.
SELECT CASE WHEN $class_index = $k THEN CAST(1 AS DOUBLE) ELSE CAST(-1 AS DOUBLE) END AS target
