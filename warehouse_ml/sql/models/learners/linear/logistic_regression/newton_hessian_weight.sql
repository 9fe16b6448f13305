-- Expression: one row's weight in block (k, l) of the negative log-likelihood's Hessian of a
-- softmax (multinomial) model, w p_k (delta_kl - p_l); times x_i x_j (summed over rows) it is
-- the entry ((k, i), (l, j)). A binary model's one block is w p (1 - p).
-- Placeholders: $weight (the row's weight, DOUBLE; 1 unweighted), $p_k, $p_l (the row's
--   probabilities at the current coefficients), $delta (1 when k = l, else 0).
-- Rendered by: warehouse_ml/models/learners/linear/newton_sums.py.
SELECT $weight * $p_k * ($delta - $p_l) AS hessian_weight
