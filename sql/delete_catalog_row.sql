-- Removes one model's catalog row.
-- Placeholders: $table (catalog), $name (model name, a string value).
DELETE FROM $table WHERE name = $name
