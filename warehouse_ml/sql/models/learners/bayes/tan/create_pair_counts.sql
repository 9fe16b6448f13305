-- A model's pair-count table: joint counts of every attribute pair and the class, so that
-- structure (CMI, MI) and TAN parameters can be recomputed without rescanning the source.
-- Each model partition (counts and classes with a wml_part column) from its own counts.
-- Placeholders: $table (output), $counts (attribute_i, attribute_j, value_i, value_j,
--   class_label, n, wml_part; e.g. from pairs.pair_counts_query), $classes (the class
--   table), $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part (INTEGER), attribute_i (VARCHAR, the earlier attribute in feature order), attribute_j
--   (VARCHAR), value_i (VARCHAR), value_j (VARCHAR), class_index (INTEGER), n ($count_type rows or
--   weights; rows where attribute_i or attribute_j is NULL are not counted).
-- Rendered by: warehouse_ml/models/learners/bayes/tan.py.
CREATE TABLE $table AS
SELECT
    k.wml_part AS wml_part,
    k.attribute_i AS attribute_i,
    k.attribute_j AS attribute_j,
    k.value_i AS value_i,
    k.value_j AS value_j,
    c.class_index AS class_index,
    CAST(k.n AS $count_type) AS n
FROM $counts AS k
JOIN $classes AS c ON c.wml_part = k.wml_part AND c.class_label = k.class_label
