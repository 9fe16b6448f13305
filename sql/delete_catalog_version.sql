-- Removes one version of a model's catalog row: the row of that name AND model id (so a row
-- another connection wrote meanwhile, under a new model id, is left for the caller to see).
-- Placeholders: $table (catalog), $name (model name, a string value), $model_id (a string value).
DELETE FROM $table WHERE name = $name AND model_id = $model_id
