-- One model's catalog row.
-- Placeholders: $table (catalog), $name (model name, a string value).
-- Output columns: those of the catalog (zero or one row).
SELECT * FROM $table AS c WHERE c.name = $name
