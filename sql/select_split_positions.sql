-- Rows of a source ranked for a deterministic, seeded split (DESIGN.md section 3 rules 5, 6).
-- Each row (once per repeat) gets the digest MD5('<seed>:<repeat>:' || CAST(key AS VARCHAR)),
-- its first 15 hex digits as a BIGINT (fold_hash.sql), and its 0-based position within the
-- repeat when rows are ordered by stratum (MD5 of the stratum text, NULL stratum last), then
-- hash, then the full digest (a total order when keys are unique).
-- Placeholders: $source (relation), $row_key (expression over src: the key column, or
--   ROW_NUMBER() OVER () when there is no key), $stratum (expression over src: the
--   stratification column, or NULL), $seed (integer), $repeats (VALUES relation r(wml_repeat)),
--   $hash_value (fold_hash.sql bound to h.wml_digest).
-- Output columns: every source column, wml_key, wml_stratum (VARCHAR), wml_repeat (INTEGER),
--   wml_digest (VARCHAR), wml_hash (BIGINT), wml_position (BIGINT, 0-based within the repeat).
WITH keyed AS (
    SELECT src.*, $row_key AS wml_key, CAST($stratum AS VARCHAR) AS wml_stratum
    FROM $source AS src
),
hashed AS (
    SELECT
        k.*,
        r.wml_repeat AS wml_repeat,
        MD5(
            CAST($seed AS VARCHAR) || ':' || CAST(r.wml_repeat AS VARCHAR) || ':'
            || CAST(k.wml_key AS VARCHAR)
        ) AS wml_digest
    FROM keyed AS k
    CROSS JOIN $repeats
),
valued AS (
    SELECT h.*, $hash_value AS wml_hash FROM hashed AS h
)
SELECT
    v.*,
    ROW_NUMBER() OVER (
        PARTITION BY v.wml_repeat
        ORDER BY MD5(v.wml_stratum) NULLS LAST, v.wml_hash, v.wml_digest
    ) - 1 AS wml_position
FROM valued AS v
