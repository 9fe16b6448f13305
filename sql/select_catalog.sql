-- Every model in the catalog, by name.
-- Placeholders: $table (catalog). Output columns: those of the catalog.
SELECT * FROM $table AS c ORDER BY c.name
