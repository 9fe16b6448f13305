-- Row count and key uniqueness of the rows a key deals (stats/keys.py: splits, resamples,
-- reduced-error pruning, the Platt folds), checked before dealing them.
-- Placeholders: $source (relation), $key_value (expression over src: the key column, or 1).
-- Output columns: n_rows (BIGINT), n_keys (BIGINT non-NULL keys), n_distinct (BIGINT).
-- Rendered by: warehouse_ml/stats/keys.py.
SELECT
    COUNT(*) AS n_rows,
    COUNT($key_value) AS n_keys,
    COUNT(DISTINCT $key_value) AS n_distinct
FROM $source AS src
