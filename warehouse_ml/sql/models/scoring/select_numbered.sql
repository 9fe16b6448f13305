-- The source's rows with their ordinal in scan order (1-based), so that Python results can be
-- returned in source order (scoring.score_query; a decision tree's and a k-NN model's explanations).
-- Placeholders: $source (relation), $row (the ordinal's name: one no source column has).
-- Output columns: $row (BIGINT), then the source's columns.
-- Rendered by: warehouse_ml/models/scoring/steps.py, warehouse_ml/models/learners/tree/decision_tree.py, warehouse_ml/models/learners/neighbors/k_nearest_neighbors.py.
SELECT ROW_NUMBER() OVER () AS $row, src.* FROM $source AS src
