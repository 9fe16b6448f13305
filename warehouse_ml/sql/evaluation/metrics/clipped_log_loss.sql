-- Expression: -ln(p) with p clipped to [floor, 1 - floor] (scikit-learn's log_loss clip); a
-- NULL probability counts as the floor.
-- Placeholders: $probability (DOUBLE), $floor (DOUBLE in (0, 0.5)).
-- Rendered by: warehouse_ml/evaluation/metrics/scoring_rules.py.
SELECT -LN(LEAST(GREATEST($probability, $floor), 1 - $floor)) AS term
