-- The loss each row incurs, L(true class, chosen class), from a loss matrix; rows without a
-- chosen class are left out.
-- Placeholders: $decisions (relation from select_loss_decisions.sql), $chosen (name of the
--   chosen-class index column: decision_index or predicted_index), $costs (VALUES
--   m(true_index, predicted_index, loss)).
-- Output columns: term (DOUBLE), weight (the row's weight).
-- Rendered by: warehouse_ml/evaluation/metrics/loss.py.
SELECT CAST(m.loss AS DOUBLE) AS term, d.weight AS weight
FROM $decisions AS d
JOIN $costs ON m.true_index = d.true_index AND m.predicted_index = d.$chosen
