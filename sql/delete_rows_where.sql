-- Removes the rows of a small library table (the catalog, the object registry) that satisfy a
-- condition (on Spark, rewritten by dialects.py into a copy without them).
-- Placeholders: $table, $condition (a boolean expression over the table's columns).
-- Output: none.
DELETE FROM $table WHERE $condition
