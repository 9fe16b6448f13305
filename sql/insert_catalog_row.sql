-- Adds one model's row to the catalog.
-- Placeholders: $table (catalog), $row (a parenthesised list of 16 values in column order).
INSERT INTO $table SELECT * FROM $row
