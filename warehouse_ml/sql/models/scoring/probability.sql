-- Expression: posterior probability of one class from the max-shifted scores.
-- Placeholders: $shifted (exp(joint - max) of the class), $total (sum of all classes' shifted
--   scores, added in class order). NULL when every class is impossible.
-- Rendered by: warehouse_ml/models/scoring/normalise.py.
SELECT $shifted / NULLIF($total, 0) AS probability
