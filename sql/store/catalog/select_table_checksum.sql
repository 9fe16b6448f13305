-- Row count and an order-free checksum of one parameter table (integrity.py): the sums over its
-- rows of two numbers read from the MD5 digest of the row's text ($row_text: every column,
-- length-prefixed, NULL marked; warehouse.Warehouse.digest_numbers gives the numbers). Recorded
-- at fit; a table edited by hand (rows deleted, added or changed) no longer matches.
-- Placeholders: $table, $part (the part name, a string value), $high, $low (integer
--   expressions over t: the two numbers of the row's digest).
-- Output columns: part (VARCHAR), n_rows (BIGINT), checksum_high, checksum_low (integers).
-- Rendered by: warehouse_ml/store/integrity.py.
SELECT
    $part AS part,
    COUNT(*) AS n_rows,
    COALESCE(SUM($high), 0) AS checksum_high,
    COALESCE(SUM($low), 0) AS checksum_low
FROM $table AS t
