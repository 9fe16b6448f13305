-- Expression, DuckDB only (splits.py uses it on DuckDB alone): the same MD5 as
-- split_digest.sql as one 128-bit integer (MD5_NUMBER reads the 16 digest bytes
-- little-endian, so its order is NOT the hex text's: see split_sort_key.sql).
-- Placeholders: $seed (integer), $repeat (the repeat column), $key (the key column).
-- Output: digest (UHUGEINT).
-- Rendered by: warehouse_ml/evaluation/splits.py.
SELECT
    MD5_NUMBER(
        CAST($seed AS VARCHAR) || ':' || CAST($repeat AS VARCHAR) || ':' || CAST($key AS VARCHAR)
    ) AS digest
