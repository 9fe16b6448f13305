-- Placeholders: $table. Output: none.
DROP TABLE IF EXISTS $table
