-- The rows of a source with each numeric attribute NULL where it holds its class's extreme
-- value (the value farthest from the class mean, from numeric_moments), for the moments of
-- each class without that value (moments.without_extremes; leave-one-out, loo.py).
-- Placeholders: $source (relation), $target (column), $moments (a numeric_moments table of
--   the same rows: attribute, class_label, extreme, ...), $extremes (list: per attribute i,
--   "MAX(CASE WHEN m.attribute = '<attribute>' THEN m.extreme END) AS wml_e_<i>"),
--   $attributes (list: per attribute, "CASE WHEN CAST(src.<attribute> AS DOUBLE) =
--   e.wml_e_<i> THEN NULL ELSE src.<attribute> END AS <attribute>").
-- Output columns: the target, then each attribute (its own type).
-- Rendered by: warehouse_ml/stats/moments.py.
SELECT src.$target AS $target, $attributes
FROM $source AS src
LEFT JOIN (
    SELECT m.class_label AS class_label, $extremes
    FROM $moments AS m
    GROUP BY m.class_label
) AS e ON e.class_label = CAST(src.$target AS VARCHAR)
