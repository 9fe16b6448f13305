-- Expression: one row's weighted log-likelihood, w ln p_y = w (score_y - max - ln(total)), from
-- the max-shifted softmax of its class scores (natural log; never underflows).
-- Placeholders: $weight (the row's weight, DOUBLE; 1 unweighted), $score (the score of the
--   row's own class), $max (the largest class score), $total (sum over classes of
--   exp(score - max), >= 1).
-- Rendered by: warehouse_ml/models/learners/linear/newton_sums.py.
SELECT $weight * ($score - $max - LN($total)) AS log_likelihood
