-- Expression, DuckDB only: 8 bytes of a digest (engine_duckdb_digest_bytes.sql) as an unsigned
-- big-endian integer: bytes 0-7 ($shift = 0) or 8-15 ($shift = 64). MD5_NUMBER holds byte i
-- at bits 8i..8i+7, so the bytes are swapped; sorting by (bytes 0-7, bytes 8-15) is sorting by
-- the hex text of the digest, the order every engine uses.
-- Placeholders: $bytes (UBIGINT: engine_duckdb_digest_bytes.sql).
-- Output: sort_key (UBIGINT).
-- Rendered by: warehouse_ml/engines/duckdb.py.
SELECT
    (($bytes & CAST(255 AS UBIGINT)) << 56)
    | ((($bytes >> 8) & CAST(255 AS UBIGINT)) << 48)
    | ((($bytes >> 16) & CAST(255 AS UBIGINT)) << 40)
    | ((($bytes >> 24) & CAST(255 AS UBIGINT)) << 32)
    | ((($bytes >> 32) & CAST(255 AS UBIGINT)) << 24)
    | ((($bytes >> 40) & CAST(255 AS UBIGINT)) << 16)
    | ((($bytes >> 48) & CAST(255 AS UBIGINT)) << 8)
    | (($bytes >> 56) & CAST(255 AS UBIGINT)) AS sort_key
