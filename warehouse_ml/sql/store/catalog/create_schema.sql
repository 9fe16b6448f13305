-- Creates the schema that holds model tables, if it is not there yet.
-- Placeholders: $schema (a one-part name). Output: none.
-- Rendered by: warehouse_ml/store/ownership.py.
CREATE SCHEMA IF NOT EXISTS $schema
