-- Copies a relation into a new table.
-- Placeholders: $table (new table), $source (relation). Output columns: those of $source.
CREATE TABLE $table AS SELECT * FROM $source AS src
