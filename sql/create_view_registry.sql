-- Prediction views made by warehouse-ml, so that a re-fit can rebuild them atomically.
-- Placeholders: $table (the registry table). Output: none.
-- Columns: view_name (JSON list of name parts), model (model name), source (JSON description of
--   the source), options (JSON object: keys, decision rule).
CREATE TABLE IF NOT EXISTS $table (
    view_name VARCHAR NOT NULL,
    model VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    options VARCHAR NOT NULL
)
