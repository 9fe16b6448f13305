-- Engine-specific (DuckDB): the current transaction's id, read right after
-- engine_duckdb_session.sql at the start of a library call: the two ids are equal only inside an
-- open (user) transaction, as each statement outside one runs in a transaction of its own.
-- Output columns: transaction_id (BIGINT).
-- Rendered by: warehouse_ml/engines/duckdb.py.
SELECT txid_current() AS transaction_id
