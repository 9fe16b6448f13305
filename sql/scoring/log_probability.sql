-- Expression: natural-log posterior of one class: joint - max - ln(total); NULL when the class
-- is impossible.
-- Placeholders: $joint, $max, $total (as in probability.sql).
-- Rendered by: warehouse_ml/models/scoring.py.
SELECT $joint - $max - LN(NULLIF($total, 0)) AS log_probability
