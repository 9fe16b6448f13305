-- The source's rows with their ordinal in scan order (1-based), so that Python results can be
-- returned in source order.
-- Placeholders: $source (relation).
-- Output columns: wml_row (BIGINT), then the source's columns.
SELECT ROW_NUMBER() OVER () AS wml_row, src.* FROM $source AS src
