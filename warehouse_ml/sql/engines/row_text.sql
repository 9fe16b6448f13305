-- Expression: the text of a whole row of the relation aliased t (DuckDB, PostgreSQL), for the
-- checksums of integrity.py (warehouse.Warehouse.row_text; engines that cannot cast a row to
-- text use every column's text instead).
-- Rendered by: warehouse_ml/engines/duckdb.py, warehouse_ml/engines/postgres.py.
SELECT CAST(t AS VARCHAR) AS text
