-- The pair counts of each TAN edge, oriented from the attribute's side (tan.py): one row per
-- (attribute, value, parent value, class) counted in training, i.e. N(x, pa, c) > 0 of rows
-- where both the attribute and its parent are non-NULL. Each model partition
-- (column wml_part) with its own tree.
-- Placeholders: $pair_counts (a pair-count table), $edges (VALUES e: attribute, parent, wml_part).
-- Output columns: wml_part (INTEGER), attribute (VARCHAR), parent (VARCHAR),
--   value (VARCHAR), parent_value (VARCHAR), class_index (INTEGER), n (BIGINT rows, > 0).
-- Rendered by: warehouse_ml/models/learners/bayes/tan.py.
SELECT
    k.wml_part AS wml_part,
    e.attribute AS attribute,
    e.parent AS parent,
    CASE WHEN k.attribute_i = e.attribute THEN k.value_i ELSE k.value_j END AS value,
    CASE WHEN k.attribute_i = e.attribute THEN k.value_j ELSE k.value_i END AS parent_value,
    k.class_index AS class_index,
    k.n AS n
FROM $pair_counts AS k
JOIN $edges
    ON e.wml_part = k.wml_part
    AND (
        (k.attribute_i = e.attribute AND k.attribute_j = e.parent)
        OR (k.attribute_i = e.parent AND k.attribute_j = e.attribute)
    )
