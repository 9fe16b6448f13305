-- Expression: one row's term of the log-likelihood's gradient for class k's coefficients,
-- w (y_k - p_k): y_k is 1 when the row's class is k, else 0; times each design column x_j
-- (summed over rows) it is the gradient's entry (k, j).
-- Placeholders: $weight (the row's weight, DOUBLE; 1 unweighted), $class_index (the row's
--   class index), $k (integer), $probability (the row's p_k at the current coefficients).
-- Rendered by: warehouse_ml/models/learners/linear/newton_sums.py.
SELECT $weight * (
    CASE WHEN $class_index = $k THEN CAST(1 AS DOUBLE) ELSE CAST(0 AS DOUBLE) END - $probability
) AS residual
