-- Engine-specific (PostgreSQL): the views and materialized views whose definition reads a
-- relation (through their rewrite rules, pg_depend): PostgreSQL refuses to drop the relation
-- while they exist, and to change its columns other than by appending new ones.
-- Placeholders: $name (a string value: the quoted, schema-qualified name of the relation).
-- Output columns: schema_name, object_name (VARCHAR), object_kind ('view').
-- Rendered by: warehouse_ml/engines/postgres.py.
SELECT DISTINCT
    n.nspname AS schema_name,
    v.relname AS object_name,
    'view' AS object_kind
FROM pg_depend AS d
JOIN pg_rewrite AS r ON r.oid = d.objid
JOIN pg_class AS v ON v.oid = r.ev_class
JOIN pg_namespace AS n ON n.oid = v.relnamespace
WHERE
    d.classid = to_regclass('pg_catalog.pg_rewrite')
    AND d.refclassid = to_regclass('pg_catalog.pg_class')
    AND d.refobjid = to_regclass($name)
    AND v.oid <> d.refobjid
ORDER BY schema_name, object_name
