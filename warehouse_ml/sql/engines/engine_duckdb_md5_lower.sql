-- Engine-specific (DuckDB): the lower 64 bits of a text's MD5 digest as an unsigned integer
-- (warehouse.DuckDBWarehouse.digest_numbers; summed as HUGEINT, exactly).
-- Placeholders: $text.
-- Rendered by: warehouse_ml/engines/duckdb.py.
SELECT md5_number_lower($text) AS number
