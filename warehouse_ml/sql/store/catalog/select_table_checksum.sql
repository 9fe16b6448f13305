-- Row count and an order-free checksum of one parameter table (integrity.py): the sums over its
-- rows of two numbers read from the MD5 digest of the row's text (every column, length-prefixed,
-- NULL marked). The digest is taken once per row, in the inner query, and the numbers read from
-- it by name: written inline, the row's text would repeat in each of their 16 hex digits (an
-- 80 kB statement for a Naive Bayes model, which Spark took seconds to plan). Recorded at fit;
-- a table edited by hand (rows deleted, added or changed) no longer matches.
-- Placeholders: $table, $part (the part name, a string value), $digest (the row's digest over
--   t: warehouse.Warehouse.checksum_digest), $high, $low (integer expressions over
--   d.wml_digest: warehouse.Warehouse.digest_numbers).
-- Output columns: part (VARCHAR), n_rows (BIGINT), checksum_high, checksum_low (integers).
-- Rendered by: warehouse_ml/store/integrity.py.
SELECT
    $part AS part,
    COUNT(*) AS n_rows,
    COALESCE(SUM($high), 0) AS checksum_high,
    COALESCE(SUM($low), 0) AS checksum_low
FROM (SELECT $digest AS wml_digest FROM $table AS t) AS d
