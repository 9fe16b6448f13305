-- Rows of a source ranked for a deterministic, seeded split (docs/ARCHITECTURE.md,
-- "Deterministic splits").
-- Each row (once per repeat) has a digest (select_split_digests.sql) and gets its 0-based
-- position within the repeat when rows are ordered by stratum (MD5 of the stratum as text,
-- then the text itself; NULL stratum last), then digest: a total order when keys are unique.
-- A digest is 32 lowercase hex digits, so its text order is its numeric order on every
-- engine. The position is the row's rank within its stratum plus the stratum's offset (the
-- number of rows in the strata before it): only rows of one stratum are sorted together, the
-- offsets come from a count per stratum of the source, and the stratum keeps its own type
-- (only the few strata are cast to text, to order them). Rows are sorted by $sort_keys, the
-- digest itself, or on DuckDB two integers in the same order (engines/duckdb.py: sorting
-- 64-bit integers costs far less than sorting hex text).
-- Placeholders: $source (relation), $stratum (expression over src: the stratification column,
--   or a VARCHAR NULL), $digests (relation from select_split_digests.sql), $sort_keys (list
--   of aliased items over d.wml_digest), $sort_order (list of h.<sort key> columns),
--   $partition_keys (h.wml_stratum, with h.wml_repeat first when there are several repeats:
--   DuckDB sorts a partition keyed by the stratum alone markedly faster).
-- Output columns: those of $digests, the sort keys, wml_rank (BIGINT, 1-based within the
--   stratum and repeat), wml_position (BIGINT, 0-based within the repeat).
-- Rendered by: warehouse_ml/evaluation/splits.py.
WITH strata AS (
    SELECT s.wml_stratum, COUNT(*) AS n
    FROM (SELECT $stratum AS wml_stratum FROM $source AS src) AS s
    GROUP BY s.wml_stratum
),
offsets AS (
    SELECT
        s.wml_stratum,
        SUM(s.n) OVER (
            ORDER BY MD5(CAST(s.wml_stratum AS VARCHAR)) NULLS LAST, CAST(s.wml_stratum AS VARCHAR)
            ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) - s.n AS wml_offset
    FROM strata AS s
),
ranked AS (
    SELECT
        h.*,
        ROW_NUMBER() OVER (PARTITION BY $partition_keys ORDER BY $sort_order) AS wml_rank
    FROM (SELECT d.*, $sort_keys FROM $digests AS d) AS h
)
SELECT h.*, o.wml_offset + h.wml_rank - 1 AS wml_position
FROM ranked AS h
JOIN offsets AS o ON o.wml_stratum IS NOT DISTINCT FROM h.wml_stratum
