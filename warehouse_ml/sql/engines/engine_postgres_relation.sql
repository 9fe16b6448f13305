-- Engine-specific (PostgreSQL): the relation a name resolves to through the search path
-- (to_regclass), or no row.
-- Placeholders: $name (a string value: the quoted, possibly schema-qualified name).
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
WHERE c.oid = to_regclass($name)
