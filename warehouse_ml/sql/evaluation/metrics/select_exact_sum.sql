-- Sum and mean of per-row terms, exact and the same on every run and engine: each term is
-- rounded to 1e-18 as a DECIMAL(38, 18) and the decimals are added (integer arithmetic, in
-- whatever order a parallel scan adds them), then the total is read back as DOUBLE. A DOUBLE
-- SUM would differ in its last bits between runs; sorting the terms first cost two sorts of
-- the rows. Totals up to 1e20 in magnitude fit. NULL terms are left out.
-- A weighted measure weighs each term: total = sum w * term, n = sum w, mean = total / n (each
-- weighted term rounded to 1e-18; a weight of 1 leaves the terms as they are).
-- Placeholders: $terms (relation with a DOUBLE column term and the row's weight), $count_type
--   (BIGINT rows, or DOUBLE summed weights).
-- Output columns: n ($count_type rows or their weights), total (DOUBLE), mean (DOUBLE); no row
--   when there are no terms.
-- Rendered by: warehouse_ml/evaluation/metrics/spec.py.
WITH summed AS (
    SELECT
        SUM(t.weight) AS n,
        SUM(CAST(t.term * t.weight AS DECIMAL(38, 18))) AS total
    FROM $terms AS t
    WHERE t.term IS NOT NULL
)
SELECT
    CAST(s.n AS $count_type) AS n,
    CAST(s.total AS DOUBLE) AS total,
    CAST(s.total AS DOUBLE) / CAST(s.n AS DOUBLE) AS mean
FROM summed AS s
WHERE s.n > 0
