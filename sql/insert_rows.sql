-- Appends the rows of a query to an existing table with the same columns.
-- Placeholders: $table (target table), $rows (a query). Output: none.
INSERT INTO $table SELECT * FROM $rows
