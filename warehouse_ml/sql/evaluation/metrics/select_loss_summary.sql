-- Mean losses under a loss matrix: of the given (or argmax) predictions, of the
-- minimum-expected-loss decisions, and the model's own expected loss of those decisions.
-- Placeholders: $prediction_sum, $decision_sum, $expected_sum (relations from
--   select_exact_sum.sql).
-- Output columns: n (BIGINT rows with a decision), prediction_loss, decision_loss,
--   expected_loss (DOUBLE, mean per row).
-- Rendered by: warehouse_ml/evaluation/metrics/loss.py.
SELECT
    b.n AS n,
    a.mean AS prediction_loss,
    b.mean AS decision_loss,
    c.mean AS expected_loss
FROM $decision_sum AS b
LEFT JOIN $prediction_sum AS a ON 1 = 1
LEFT JOIN $expected_sum AS c ON 1 = 1
