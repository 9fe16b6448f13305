-- Adds rows given as a VALUES relation to a table (the catalog, the object registry).
-- Placeholders: $table (target), $rows (a VALUES relation with the table's columns in order).
-- Output: none.
INSERT INTO $table SELECT * FROM $rows
