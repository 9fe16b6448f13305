-- Rows of a source ranked for a deterministic, seeded split (DESIGN.md section 3 rules 5, 6).
-- Each row (once per repeat) gets the digest MD5('<seed>:<repeat>:' || CAST(key AS VARCHAR))
-- and its 0-based position within the repeat when rows are ordered by stratum (MD5 of the
-- stratum text, then the text itself; NULL stratum last), then digest: a total order when keys
-- are unique. A digest is 32 lowercase hex digits, so its text order is its numeric order on
-- every engine. The position is the row's rank within its stratum plus the stratum's offset
-- (the number of rows in the strata before it), so only rows of one stratum are sorted
-- together, and the offsets come from a count per stratum.
-- Placeholders: $source (relation), $carried (list of src columns to carry: src.* when the
--   rows themselves are kept and have no key to join back on, else just the key and stratum
--   columns, so the sort moves narrow rows), $row_key (expression over src: the key column, or
--   ROW_NUMBER() OVER () when there is no key), $stratum (expression over src: the
--   stratification column, or NULL), $seed (integer), $repeats (VALUES relation r(wml_repeat)).
-- Output columns: the $carried columns, wml_key, wml_stratum (VARCHAR), wml_repeat (INTEGER),
--   wml_digest (VARCHAR), wml_position (BIGINT, 0-based within the repeat).
WITH keyed AS (
    SELECT $carried, $row_key AS wml_key, CAST($stratum AS VARCHAR) AS wml_stratum
    FROM $source AS src
),
strata AS (
    SELECT k.wml_stratum, COUNT(*) AS n
    FROM keyed AS k
    GROUP BY k.wml_stratum
),
offsets AS (
    SELECT
        s.wml_stratum,
        SUM(s.n) OVER (
            ORDER BY MD5(s.wml_stratum) NULLS LAST, s.wml_stratum
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) - s.n AS wml_offset
    FROM strata AS s
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
)
SELECT
    h.*,
    o.wml_offset + ROW_NUMBER() OVER (
        PARTITION BY h.wml_repeat, h.wml_stratum
        ORDER BY h.wml_digest
    ) - 1 AS wml_position
FROM hashed AS h
JOIN offsets AS o ON o.wml_stratum IS NOT DISTINCT FROM h.wml_stratum
