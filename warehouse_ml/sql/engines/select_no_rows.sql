-- Reads the schema of a relation without reading any rows.
-- Placeholders: $source (table, view, table function or subquery: aliased, as PostgreSQL
--   requires of a subquery).
-- Output columns: those of $source, zero rows.
-- Rendered by: warehouse_ml/engines/base.py, warehouse_ml/models/scoring/views.py.
SELECT * FROM $source AS wml_source LIMIT 0
