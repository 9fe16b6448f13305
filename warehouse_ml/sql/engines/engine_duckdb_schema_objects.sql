-- Engine-specific (DuckDB): every table and view of one schema of the current database (for
-- ownership.vacuum, which looks for leftovers in the library's schema).
-- Placeholders: $schema (a string value).
-- Output columns: object_name (VARCHAR), object_kind ('table', 'view').
-- Rendered by: warehouse_ml/engines/duckdb.py.
SELECT t.table_name AS object_name, 'table' AS object_kind
FROM duckdb_tables() AS t
WHERE t.database_name = current_database() AND lower(t.schema_name) = lower($schema)
UNION ALL
SELECT v.view_name AS object_name, 'view' AS object_kind
FROM duckdb_views() AS v
WHERE v.database_name = current_database() AND lower(v.schema_name) = lower($schema)
    AND NOT v.internal
