-- Reads the schema of a relation without reading any rows.
-- Placeholders: $source (table, view or table function).
-- Output columns: those of $source, zero rows.
-- Rendered by: warehouse_ml/engines/base.py.
SELECT * FROM $source LIMIT 0
