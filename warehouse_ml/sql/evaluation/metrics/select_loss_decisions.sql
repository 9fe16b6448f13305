-- Minimum-expected-loss decisions: for each row and each candidate class j, the expected loss
-- sum over c of L(c, j) * p_c; the decision is the class of least expected loss (ties to the
-- first class in class order).
-- Placeholders: $predictions (relation from select_prepared_predictions.sql), $keys (list of
--   aliased c.<key> items, possibly empty), $expected_losses (list of aliased
--   sum_c L(c, j) * p.wml_p_c AS wml_loss_<j>), $minimum (LEAST over l.wml_loss_<j>),
--   $decision (CASE over d.wml_loss_<j> = d.wml_minimum giving j), $classes (VALUES
--   k(class_index, class_label)), $true_classes (the same VALUES as t(...)).
-- Output columns: the $keys, true_class (label), decision (label), expected_loss (DOUBLE,
--   the decision's expected loss), true_index, decision_index, predicted_index (INTEGER),
--   weight (the row's weight: 1 unless a weight column is given).
-- Rendered by: warehouse_ml/evaluation/metrics/loss.py.
WITH losses AS (
    SELECT p.*, $expected_losses FROM $predictions AS p
),
minimised AS (
    SELECT l.*, $minimum AS wml_minimum FROM losses AS l
),
decided AS (
    SELECT d.*, $decision AS wml_decision FROM minimised AS d
)
SELECT
    $keys,
    t.class_label AS true_class,
    k.class_label AS decision,
    c.wml_minimum AS expected_loss,
    CAST(c.wml_truth AS INTEGER) AS true_index,
    CAST(c.wml_decision AS INTEGER) AS decision_index,
    CAST(c.wml_predicted AS INTEGER) AS predicted_index,
    c.wml_weight AS weight
FROM decided AS c
LEFT JOIN $classes ON k.class_index = c.wml_decision
LEFT JOIN $true_classes ON t.class_index = c.wml_truth
