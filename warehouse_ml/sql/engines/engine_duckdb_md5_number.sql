-- Expression, DuckDB only: the MD5 digest of a text as one 128-bit integer (MD5_NUMBER reads
-- the 16 digest bytes little-endian, so its order is NOT the hex text's: see
-- engine_duckdb_digest_sort_key.sql).
-- Placeholders: $text (VARCHAR).
-- Output: digest (UHUGEINT).
-- Rendered by: warehouse_ml/engines/duckdb.py.
SELECT MD5_NUMBER($text) AS digest
