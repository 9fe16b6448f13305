-- The registry of every object warehouse-ml creates (ownership.py): recorded under the identity
-- the engine resolves its name to, before the object is created. The library replaces or drops
-- only objects recorded here.
-- Placeholders: $table (the registry table). Output: none.
-- Columns: object_key (JSON list: the engine's identity, catalog or '', schema, name, each
--   folded as the engine compares names), object_name (JSON list: the name parts to write in
--   SQL), object_kind ('table' or 'view'), owner_kind ('model', 'evaluation', 'split',
--   'measure', 'table', 'demo'), owner (model name, evaluation id...), version (the model id of
--   a parameter table, else ''), role (parameter table part, 'prediction_view', 'predictions',
--   'folds'...), lifetime ('model': while its model version is in the catalog; 'session': until
--   dropped or its session ends; 'kept': until dropped), created_by (the public call),
--   created_at (TIMESTAMP, UTC), session (who created it: engine session | process | serial),
--   details (JSON object: a view's source and options, an evaluation's facts).
-- Rendered by: warehouse_ml/store/ownership.py.
CREATE TABLE IF NOT EXISTS $table (
    object_key VARCHAR NOT NULL,
    object_name VARCHAR NOT NULL,
    object_kind VARCHAR NOT NULL,
    owner_kind VARCHAR NOT NULL,
    owner VARCHAR NOT NULL,
    version VARCHAR NOT NULL,
    role VARCHAR NOT NULL,
    lifetime VARCHAR NOT NULL,
    created_by VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL,
    session VARCHAR NOT NULL,
    details VARCHAR NOT NULL
)
