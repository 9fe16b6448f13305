-- Engine-specific (DuckDB): tables and views whose name may match $name (DuckDB compares
-- identifiers ignoring ASCII case; warehouse.DuckDBWarehouse keeps the exact matches).
-- Placeholders: $name (a string value).
-- Output columns: database_name, schema_name, object_name (VARCHAR), object_kind ('table',
--   'view'), is_temporary (BOOLEAN).
-- Rendered by: warehouse_ml/engines/duckdb.py.
SELECT
    t.database_name AS database_name,
    t.schema_name AS schema_name,
    t.table_name AS object_name,
    'table' AS object_kind,
    t.temporary AS is_temporary
FROM duckdb_tables() AS t
WHERE lower(t.table_name) = lower($name)
UNION ALL
SELECT
    v.database_name AS database_name,
    v.schema_name AS schema_name,
    v.view_name AS object_name,
    'view' AS object_kind,
    v.temporary AS is_temporary
FROM duckdb_views() AS v
WHERE lower(v.view_name) = lower($name) AND NOT v.internal
