-- Expression: one class's probability from per-class probability scores (a decision tree's
-- leaf probabilities, an ensemble's averaged member probabilities, neighbour counts): its score
-- over the row's total; a NULL score counts as 0 (an impossible class); NULL when every score
-- is 0 or NULL (total 0).
-- Placeholders: $score (the class's score, >= 0), $total (the row's scores added in class
--   order, NULL ones as 0).
-- Rendered by: warehouse_ml/models/scoring/normalise.py.
SELECT CAST(COALESCE($score, 0) AS DOUBLE) / NULLIF($total, 0) AS probability
