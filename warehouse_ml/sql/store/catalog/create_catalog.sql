-- The model catalog: one row per fitted model.
-- Placeholders: $table (the catalog table). Output: none.
-- Columns: name (model name), model_id (prefix of its parameter tables), kind ('naive_bayes' or
--   'tan'), target (column), target_type (SQL type), features (JSON list of names), feature_types
--   (JSON object name -> {kind, sql_type}), smoothing (JSON object), source (description),
--   n_rows (rows with a target), n_null_target (rows skipped), classes (JSON list of labels),
--   details (JSON object, kind-specific), created_at (TIMESTAMP, UTC), library_version,
--   format_version (INTEGER).
-- Rendered by: warehouse_ml/store/catalog.py.
CREATE TABLE IF NOT EXISTS $table (
    name VARCHAR NOT NULL,
    model_id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    target VARCHAR NOT NULL,
    target_type VARCHAR NOT NULL,
    features VARCHAR NOT NULL,
    feature_types VARCHAR NOT NULL,
    smoothing VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    n_rows BIGINT NOT NULL,
    n_null_target BIGINT NOT NULL,
    classes VARCHAR NOT NULL,
    details VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    library_version VARCHAR NOT NULL,
    format_version INTEGER NOT NULL
)
