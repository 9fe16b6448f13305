-- Expression: the text of a whole row of the relation aliased t (DuckDB, PostgreSQL), for the
-- checksums of integrity.py (warehouse.Warehouse.row_text; engines that cannot cast a row to
-- text use every column's text instead).
SELECT CAST(t AS VARCHAR) AS text
