-- Registers one prediction view.
-- Placeholders: $table (registry), $row (VALUES of view_name, model, source, options).
INSERT INTO $table SELECT * FROM $row
