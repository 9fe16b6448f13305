-- Rows of a source ranked for a deterministic, seeded split (DESIGN.md section 3 rules 5, 6).
-- Each row (once per repeat) gets the digest MD5('<seed>:<repeat>:' || CAST(key AS VARCHAR))
-- and its 0-based position within the repeat when rows are ordered by stratum (MD5 of the
-- stratum text, then the text itself; NULL stratum last), then digest: a total order when keys
-- are unique. A digest is 32 lowercase hex digits, so its text order is its numeric order on
-- every engine. The position is the row's rank within its stratum plus the stratum's offset
-- (the number of rows in the strata before it), so only rows of one stratum are sorted
-- together, and the offsets come from a count per stratum. Rows are sorted by $sort_keys, the
-- digest itself, or on DuckDB two integers in the same order (splits.py: sorting 128-bit
-- integers costs far less than sorting hex text).
-- Placeholders: $source (relation), $carried (list of src columns to carry: src.* when the
--   rows themselves are kept and have no key to join back on, else just the key and stratum
--   columns, so the sort moves narrow rows), $row_key (expression over src: the key column, or
--   ROW_NUMBER() OVER () when there is no key), $stratum (expression over src: the
--   stratification column, or NULL), $repeats (VALUES relation r(wml_repeat)), $digest (the
--   digest of the text CAST(seed AS VARCHAR) || ':' || CAST(r.wml_repeat AS VARCHAR) || ':' ||
--   CAST(k.wml_key AS VARCHAR): MD5(text), or MD5_NUMBER(text) on DuckDB), $sort_keys (list of
--   aliased items over d.wml_digest), $sort_order (list of h.<sort key> columns),
--   $partition_keys (h.wml_stratum, with h.wml_repeat first when there are several repeats:
--   DuckDB sorts a partition keyed by the stratum alone markedly faster).
-- Output columns: the $carried columns, wml_key, wml_stratum (VARCHAR), wml_repeat (INTEGER),
--   wml_digest, the sort keys, wml_position (BIGINT, 0-based within the repeat).
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
    SELECT d.*, $sort_keys
    FROM (
        SELECT
            k.*,
            r.wml_repeat AS wml_repeat,
            $digest AS wml_digest
        FROM keyed AS k
        CROSS JOIN $repeats
    ) AS d
)
SELECT
    h.*,
    o.wml_offset + ROW_NUMBER() OVER (
        PARTITION BY $partition_keys
        ORDER BY $sort_order
    ) - 1 AS wml_position
FROM hashed AS h
JOIN offsets AS o ON o.wml_stratum IS NOT DISTINCT FROM h.wml_stratum
