-- The prediction views registered for one model, in a fixed order.
-- Placeholders: $table (registry), $model (model name, a string value).
-- Output columns: view_name, model, source, options.
SELECT * FROM $table AS v WHERE v.model = $model ORDER BY v.view_name
