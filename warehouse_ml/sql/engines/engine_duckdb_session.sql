-- Engine-specific (DuckDB): the facts warehouse.DuckDBWarehouse needs about the connection at
-- the start of a library call. engine_duckdb_transaction_id.sql follows it: the transaction id
-- stays the same between two statements only inside an open (user) transaction.
-- Output columns: transaction_id (BIGINT), database_name (VARCHAR, the current catalog),
--   schema_name (VARCHAR, the current schema), search_path (VARCHAR, comma-separated schemas),
--   wml_catalog (BOOLEAN: an attached database named wml makes "wml.x" ambiguous),
--   read_only (BOOLEAN: the current database was opened read-only),
--   preserve_insertion_order (BOOLEAN: a scan returns the rows in their order; the setting
--   is the whole database's).
-- Rendered by: warehouse_ml/engines/duckdb.py.
SELECT
    txid_current() AS transaction_id,
    current_database() AS database_name,
    current_schema() AS schema_name,
    current_setting('search_path') AS search_path,
    EXISTS (
        SELECT 1 AS found FROM duckdb_databases() AS d WHERE lower(d.database_name) = 'wml'
    ) AS wml_catalog,
    EXISTS (
        SELECT 1 AS found FROM duckdb_databases() AS d
        WHERE d.database_name = current_database() AND d.readonly
    ) AS read_only,
    CAST(current_setting('preserve_insertion_order') AS BOOLEAN) AS preserve_insertion_order
