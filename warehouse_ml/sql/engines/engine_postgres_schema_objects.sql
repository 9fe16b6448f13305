-- Engine-specific (PostgreSQL): every table and view of one schema (for ownership.vacuum).
-- Placeholders: $schema (a string value).
-- Output columns: object_name (VARCHAR), object_kind ('table', 'view').
-- Rendered by: warehouse_ml/engines/postgres.py.
SELECT
    c.relname AS object_name,
    CASE WHEN c.relkind IN ('v', 'm') THEN 'view' ELSE 'table' END AS object_kind
FROM pg_class AS c
JOIN pg_namespace AS n ON n.oid = c.relnamespace
WHERE n.nspname = $schema AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
