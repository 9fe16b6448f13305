-- Row count and key uniqueness of a source, checked before splitting.
-- Placeholders: $source (relation), $key_value (expression over src: the key column, or 1).
-- Output columns: n_rows (BIGINT), n_keys (BIGINT non-NULL keys), n_distinct (BIGINT).
-- Rendered by: warehouse_ml/evaluation/splits.py, warehouse_ml/models/learners/linear_svm_platt.py.
SELECT
    COUNT(*) AS n_rows,
    COUNT($key_value) AS n_keys,
    COUNT(DISTINCT $key_value) AS n_distinct
FROM $source AS src
