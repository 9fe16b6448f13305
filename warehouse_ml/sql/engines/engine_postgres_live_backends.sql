-- Engine-specific (PostgreSQL): the sessions (pid and start time) that are alive, in the same
-- form as engine_postgres_session.sql's backend column.
-- Output columns: backend (VARCHAR).
-- Rendered by: warehouse_ml/engines/postgres.py.
SELECT CAST(a.pid AS VARCHAR) || '@' || CAST(a.backend_start AS VARCHAR) AS backend
FROM pg_stat_activity AS a
