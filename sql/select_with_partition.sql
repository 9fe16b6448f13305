-- A parameter table's rows tagged with the partition (e.g. cross-validation fold) they belong to.
-- Placeholders: $table, $partition (an integer value). Output columns: wml_part, then those of $table.
SELECT $partition AS wml_part, t.* FROM $table AS t
