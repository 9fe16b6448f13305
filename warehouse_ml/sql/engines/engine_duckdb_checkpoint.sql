-- Engine-specific (DuckDB): write what the database file holds to disk, so that the space of
-- dropped tables can be reused (warehouse.DuckDBWarehouse.after_drop). Output: none.
-- Rendered by: warehouse_ml/engines/duckdb.py.
CHECKPOINT
