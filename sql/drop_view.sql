-- Placeholders: $view. Output: none.
DROP VIEW IF EXISTS $view
