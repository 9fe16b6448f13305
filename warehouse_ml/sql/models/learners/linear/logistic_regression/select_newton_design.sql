-- The first step of a Newton pass: each labelled training row's design values, class index and
-- weight (models/learners/linear/newton_sums.py).
-- Placeholders: $source (the training rows), $target (the class column), $design_columns (list
--   of aliased items over the row s: the standardised numerics wml_z_<i> (DOUBLE), the
--   categorical level numbers wml_c_<i> (INTEGER, -1 for NULL or unseen), the class index
--   wml_y (INTEGER) and the weight wml_w (DOUBLE, 1 unweighted)).
-- Output columns: the design columns, one row per training row whose class is not NULL.
-- Rendered by: warehouse_ml/models/learners/linear/newton_sums.py.
SELECT $design_columns
FROM $source AS s
WHERE s.$target IS NOT NULL
