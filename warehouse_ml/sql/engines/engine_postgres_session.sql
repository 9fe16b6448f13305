-- Engine-specific (PostgreSQL): the facts warehouse's PostgreSQL adapter needs about the
-- session: where unqualified new objects go, and the session's identity (for telling whether
-- the session that staged an object is still alive).
-- Output columns: schema_name (VARCHAR), backend (VARCHAR: pid and start time).
-- Rendered by: warehouse_ml/engines/postgres.py.
SELECT
    current_schema() AS schema_name,
    CAST(pg_backend_pid() AS VARCHAR) || '@' || CAST(a.backend_start AS VARCHAR) AS backend
FROM pg_stat_activity AS a
WHERE a.pid = pg_backend_pid()
