-- Engine-specific (PostgreSQL): the relations of one name in the schemas of the session's
-- search path (current_schemas(TRUE): the temporary schema, pg_catalog and the schemas of
-- search_path that exist), in the order PostgreSQL looks.
-- Placeholders: $name (a string value: the name as PostgreSQL stores it, unquoted).
-- Output columns: schema_name, object_name (VARCHAR), object_kind ('table' or 'view'),
--   is_temporary (BOOLEAN).
-- Rendered by: warehouse_ml/engines/postgres.py.
SELECT
    n.nspname AS schema_name,
    c.relname AS object_name,
    CASE WHEN c.relkind IN ('v', 'm') THEN 'view' ELSE 'table' END AS object_kind,
    c.relpersistence = 't' AS is_temporary
FROM pg_class AS c
JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE c.relname = $name
    AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
    AND n.nspname = ANY(current_schemas(TRUE))
ORDER BY array_position(current_schemas(TRUE), n.nspname)
