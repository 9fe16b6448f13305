-- A decision tree's node table: one row per node and class, from the tree learned in Python.
-- Placeholders: $table (output), $node_rows (a relation: wml_part, node, parent, depth,
--   attribute, branch, leaf, class_index, n, leaf_probability), $count_type (BIGINT rows, or
--   DOUBLE summed weights: counting.count_type).
-- Output columns: wml_part (INTEGER, 0: a fitted model; cross-validation: the fold), node
--   (INTEGER, 0 the root), parent (INTEGER, NULL for the root), depth (INTEGER, 0 the root),
--   attribute (VARCHAR, the attribute the node splits on; NULL for a leaf), branch (VARCHAR,
--   the test leading to the node from its parent, in words; NULL for the root), leaf
--   (BOOLEAN), class_index (INTEGER), n (BIGINT training rows of the class at the node, or
--   DOUBLE summed weights), leaf_probability (DOUBLE, the leaf's probability of the class
--   with alpha smoothing; NULL for an inner node).
-- Rendered by: warehouse_ml/models/learners/tree/decision_tree.py.
CREATE TABLE $table AS
SELECT
    CAST(r.wml_part AS INTEGER) AS wml_part,
    CAST(r.node AS INTEGER) AS node,
    CAST(r.parent AS INTEGER) AS parent,
    CAST(r.depth AS INTEGER) AS depth,
    CAST(r.attribute AS VARCHAR) AS attribute,
    CAST(r.branch AS VARCHAR) AS branch,
    CAST(r.leaf AS BOOLEAN) AS leaf,
    CAST(r.class_index AS INTEGER) AS class_index,
    CAST(r.n AS $count_type) AS n,
    CAST(r.leaf_probability AS DOUBLE) AS leaf_probability
FROM $node_rows AS r
