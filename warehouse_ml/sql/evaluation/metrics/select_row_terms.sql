-- One per-row term of a score (log loss, squared error, incurred loss) per prediction row.
-- Placeholders: $predictions (relation), $term (expression over p), $weight (the row's weight
--   column over p: wml_weight of prepared predictions, weight of loss decisions).
-- Output columns: term (DOUBLE), weight.
-- Rendered by: warehouse_ml/evaluation/metrics/loss.py, warehouse_ml/evaluation/metrics/scoring_rules.py.
SELECT $term AS term, $weight AS weight FROM $predictions AS p
