-- A decision tree's leaves with one column per class of their probabilities.
-- Placeholders: $table (a tree's nodes table, create_tree_nodes.sql), $class_columns (list of
--   aliased MAX(CASE WHEN p.class_index = i THEN p.leaf_probability END) items).
-- Output columns: wml_part (INTEGER), node (INTEGER, a leaf), then the class columns (DOUBLE).
-- Rendered by: warehouse_ml/models/learners/tree/scoring.py.
SELECT p.wml_part AS wml_part, p.node AS node, $class_columns
FROM $table AS p
WHERE p.leaf
GROUP BY p.wml_part, p.node
