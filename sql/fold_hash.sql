-- Expression: the first 15 hex digits of an MD5 digest as a BIGINT in [0, 16^15), computed
-- with portable string functions only (DESIGN.md section 3 rule 5: no hash(), no '0x' casts).
-- Placeholders: $digest (a 32-character lowercase hex MD5 text).
-- 16^7 is cast to BIGINT: STRPOS is a 32-bit INTEGER on PostgreSQL and Spark, and 15 * 16^7
-- overflows it (the larger powers are BIGINT literals already).
-- Output: hash_value (BIGINT).
SELECT
    CAST(
        (STRPOS('0123456789abcdef', SUBSTR($digest, 1, 1)) - 1) * 72057594037927936
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 2, 1)) - 1) * 4503599627370496
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 3, 1)) - 1) * 281474976710656
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 4, 1)) - 1) * 17592186044416
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 5, 1)) - 1) * 1099511627776
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 6, 1)) - 1) * 68719476736
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 7, 1)) - 1) * 4294967296
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 8, 1)) - 1) * CAST(268435456 AS BIGINT)
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 9, 1)) - 1) * 16777216
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 10, 1)) - 1) * 1048576
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 11, 1)) - 1) * 65536
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 12, 1)) - 1) * 4096
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 13, 1)) - 1) * 256
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 14, 1)) - 1) * 16
        + (STRPOS('0123456789abcdef', SUBSTR($digest, 15, 1)) - 1) * 1
    AS BIGINT) AS hash_value
