-- Engine-specific (Spark): the integer value of 8 hex digits of a lowercase hex text (a MD5
-- digest) by Spark's own base conversion, the value sql/engines/hex_digits_number.sql computes
-- digit by digit (warehouse.SparkWarehouse.digest_numbers: one function call instead of 8
-- lookups, which Spark plans in a fraction of the time).
-- Placeholders: $digest (text), $first (1-based position of the first digit).
-- Rendered by: warehouse_ml/engines/spark.py.
SELECT CAST(CONV(SUBSTR($digest, $first, 8), 16, 10) AS BIGINT) AS number
