-- A decision tree's routes, what its scoring walks one join per level: per node, one row for
-- every code a row's value can take there (a threshold split: 0 for x <= t, 1 for x > t, -1 for
-- NULL; a categorical split: each value's code, -1 for NULL, -2 for a value no split names; a
-- leaf: 0), naming the child the row goes to and the child's own test.
-- Placeholders: $table (output), $route_rows (a relation: wml_part, node, code, child,
--   attribute, threshold).
-- Output columns: wml_part (INTEGER, 0: a fitted model; cross-validation: the fold), node
--   (INTEGER), code (INTEGER), child (INTEGER, the node the row goes to; a leaf's own id for
--   a leaf), attribute (INTEGER, the position among the model's features of the attribute the
--   child splits on; NULL for a leaf), threshold (DOUBLE, the child's threshold; NULL unless
--   it splits on one).
-- Rendered by: warehouse_ml/models/learners/tree/scoring.py.
CREATE TABLE $table AS
SELECT
    CAST(r.wml_part AS INTEGER) AS wml_part,
    CAST(r.node AS INTEGER) AS node,
    CAST(r.code AS INTEGER) AS code,
    CAST(r.child AS INTEGER) AS child,
    CAST(r.attribute AS INTEGER) AS attribute,
    CAST(r.threshold AS DOUBLE) AS threshold
FROM $route_rows AS r
