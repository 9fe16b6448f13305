-- The catalog rows of one model name (one, except after two concurrent first fits of a name).
-- Placeholders: $table (the catalog table), $name (the model's name, a string value).
-- Output columns: those of $table, in order of model_id.
-- Rendered by: warehouse_ml/store/catalog.py.
SELECT * FROM $table AS t WHERE t.name = $name ORDER BY t.model_id
