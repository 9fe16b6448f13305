-- Engine-specific (DuckDB): the schemas of every attached database, to tell whether the first
-- part of a two-part name is a schema of the current database or a database.
-- Output columns: database_name, schema_name (VARCHAR).
-- Rendered by: warehouse_ml/engines/duckdb.py.
SELECT s.database_name AS database_name, s.schema_name AS schema_name FROM duckdb_schemas() AS s
