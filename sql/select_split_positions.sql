-- Rows of a source ranked for a deterministic, seeded split (DESIGN.md section 3 rules 5, 6).
-- Each row (once per repeat) gets the digest MD5('<seed>:<repeat>:' || CAST(key AS VARCHAR))
-- and its 0-based position within the repeat when rows are ordered by stratum (MD5 of the
-- stratum text, NULL stratum last), then digest: a total order when keys are unique. A digest
-- is 32 lowercase hex digits, so its text order is its numeric order on every engine.
-- The position is computed in buckets (repeat, stratum, first two hex digits of the digest),
-- each ranked on its own, which engines sort in parallel: a bucket's offset is the number of
-- rows in the buckets before it, so position = offset + rank within the bucket - 1, exactly
-- the rank in the one global order.
-- Placeholders: $source (relation), $carried (list of src columns to carry: src.* when the
--   rows themselves are kept and have no key to join back on, else just the key and stratum
--   columns, so the sort moves narrow rows), $row_key (expression over src: the key column, or
--   ROW_NUMBER() OVER () when there is no key), $stratum (expression over src: the
--   stratification column, or NULL), $seed (integer), $repeats (VALUES relation r(wml_repeat)).
-- Output columns: the $carried columns, wml_key, wml_stratum (VARCHAR), wml_repeat (INTEGER),
--   wml_digest (VARCHAR), wml_bucket (VARCHAR), wml_position (BIGINT, 0-based within the
--   repeat).
WITH keyed AS (
    SELECT $carried, $row_key AS wml_key, CAST($stratum AS VARCHAR) AS wml_stratum
    FROM $source AS src
),
hashed AS (
    SELECT
        d.*,
        SUBSTR(d.wml_digest, 1, 2) AS wml_bucket
    FROM (
        SELECT
            k.*,
            r.wml_repeat AS wml_repeat,
            MD5(
                CAST($seed AS VARCHAR) || ':' || CAST(r.wml_repeat AS VARCHAR) || ':'
                || CAST(k.wml_key AS VARCHAR)
            ) AS wml_digest
        FROM keyed AS k
        CROSS JOIN $repeats
    ) AS d
),
buckets AS (
    SELECT h.wml_repeat, h.wml_stratum, h.wml_bucket, COUNT(*) AS n
    FROM hashed AS h
    GROUP BY h.wml_repeat, h.wml_stratum, h.wml_bucket
),
offsets AS (
    SELECT
        b.wml_repeat,
        b.wml_stratum,
        b.wml_bucket,
        SUM(b.n) OVER (
            PARTITION BY b.wml_repeat
            ORDER BY MD5(b.wml_stratum) NULLS LAST, b.wml_bucket
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) - b.n AS wml_offset
    FROM buckets AS b
)
SELECT
    h.*,
    o.wml_offset + ROW_NUMBER() OVER (
        PARTITION BY h.wml_repeat, h.wml_stratum, h.wml_bucket
        ORDER BY h.wml_digest
    ) - 1 AS wml_position
FROM hashed AS h
JOIN offsets AS o
    ON o.wml_repeat = h.wml_repeat
    AND o.wml_stratum IS NOT DISTINCT FROM h.wml_stratum
    AND o.wml_bucket = h.wml_bucket
