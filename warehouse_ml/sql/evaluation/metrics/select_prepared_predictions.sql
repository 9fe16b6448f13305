-- A predictions relation in the form every measure reads: rows whose true label is one of the
-- classes, with class indexes instead of labels and probabilities as DOUBLE.
-- Placeholders: $source (relation), $keys (list of aliased src.<column> items to pass through,
--   possibly empty), $truth (CASE giving the class index of the true label, NULL when it is NULL
--   or not a class), $predicted (class index of the prediction: a CASE over the prediction
--   column, or the argmax of the probabilities), $probabilities (list of
--   CAST(src.<column> AS DOUBLE) AS wml_p_<i>, one per class in class order), $weight (the
--   row's weight: 1, or CAST(src.<weight column> AS DOUBLE)).
-- Output columns: the $keys, wml_truth (INTEGER), wml_predicted (INTEGER, NULL when the
--   prediction is NULL or not a class), wml_p_0 .. wml_p_<K-1> (DOUBLE), wml_weight.
-- Rendered by: warehouse_ml/evaluation/metrics/spec.py.
SELECT $keys, $truth AS wml_truth, $predicted AS wml_predicted, $probabilities, $weight AS wml_weight
FROM $source AS src
WHERE $truth IS NOT NULL
