-- The labelled training rows of a k-NN model as stored neighbours, before their keys: each
-- row's class index and coordinates (models/learners/neighbors/search.py).
-- Placeholders: $source (the training rows), $target (the class column), $coordinates (list of
--   aliased items over the row s: class_index (INTEGER), then x_<i> per feature: the
--   standardised value, DOUBLE, or the level number, INTEGER, -1 for NULL or unseen).
-- Output columns: the coordinates, one row per training row whose class is not NULL.
-- Rendered by: warehouse_ml/models/learners/neighbors/k_nearest_neighbors.py.
SELECT $coordinates
FROM $source AS s
WHERE s.$target IS NOT NULL
