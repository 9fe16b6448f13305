-- Expression, DuckDB only: 8 of the 16 bytes of a digest (engine_duckdb_md5_number.sql) as
-- MD5_NUMBER holds them (little-endian): bytes 0-7 for $shift = 0, bytes 8-15 for 64.
-- Placeholders: $digest (UHUGEINT), $shift (0 or 64).
-- Output: bytes (UBIGINT).
-- Rendered by: warehouse_ml/engines/duckdb.py.
SELECT CAST(($digest >> $shift) & CAST(18446744073709551615 AS UHUGEINT) AS UBIGINT) AS bytes
