-- Row count and an order-free checksum of one parameter table (integrity.py): the sum over its
-- rows of two 32-bit numbers read from the MD5 digest of the row's text ($row_text: every
-- column, length-prefixed, NULL marked). Recorded at fit; a table edited by hand (rows
-- deleted, added or changed) no longer matches.
-- Placeholders: $table, $part (the part name, a string value), $row_text (text expression
--   over t), $high, $low (integer expressions over d.digest: hex digits 1-8 and 9-16).
-- Output columns: part (VARCHAR), n_rows (BIGINT), checksum_high, checksum_low (BIGINT).
SELECT
    $part AS part,
    COUNT(*) AS n_rows,
    COALESCE(SUM($high), 0) AS checksum_high,
    COALESCE(SUM($low), 0) AS checksum_low
FROM (SELECT MD5($row_text) AS digest FROM $table AS t) AS d
