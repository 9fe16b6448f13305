-- Removes one view's registry row.
-- Placeholders: $table (registry), $view_name (JSON list of name parts, a string value).
DELETE FROM $table WHERE view_name = $view_name
