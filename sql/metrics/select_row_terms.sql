-- One per-row term of a score (log loss, squared error, incurred loss) per prediction row.
-- Placeholders: $predictions (relation), $term (expression over p).
-- Output columns: term (DOUBLE).
-- Rendered by: warehouse_ml/evaluation/metrics/loss.py, warehouse_ml/evaluation/metrics/scoring_rules.py.
SELECT $term AS term FROM $predictions AS p
