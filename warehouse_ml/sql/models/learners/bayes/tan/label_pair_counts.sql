-- Pair counts keyed by class label turned into the pair-count layout keyed by class_index
-- (the label itself serves as the class key; used where no class table exists: Chow-Liu
-- trees over a constant class, pair information before any model is fit).
-- Placeholders: $counts (wml_part, attribute_i, attribute_j, value_i, value_j, class_label, n).
-- Output columns: wml_part, attribute_i, attribute_j, value_i, value_j, class_index (the label), n.
-- Rendered by: warehouse_ml/models/learners/bayes/chow_liu.py, warehouse_ml/models/inspection/relevance.py.
SELECT
    k.wml_part AS wml_part,
    k.attribute_i AS attribute_i,
    k.attribute_j AS attribute_j,
    k.value_i AS value_i,
    k.value_j AS value_j,
    k.class_label AS class_index,
    k.n AS n
FROM $counts AS k
