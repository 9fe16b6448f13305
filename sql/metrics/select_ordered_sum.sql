-- Sum and mean of per-row terms, deterministic: rows are grouped by term value, then added in
-- increasing term order by a running sum (an aggregate over parallel scans would add them in
-- any order). NULL terms are left out.
-- Placeholders: $terms (relation with a DOUBLE column term).
-- Output columns: n (BIGINT rows), total (DOUBLE), mean (DOUBLE); no row when there are no
--   terms.
-- Rendered by: warehouse_ml/evaluation/metrics/spec.py.
WITH grouped AS (
    SELECT t.term AS term, COUNT(*) AS n
    FROM $terms AS t
    WHERE t.term IS NOT NULL
    GROUP BY t.term
),
running AS (
    SELECT
        SUM(g.term * g.n) OVER (ORDER BY g.term ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            AS total,
        SUM(g.n) OVER (ORDER BY g.term ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS n,
        ROW_NUMBER() OVER (ORDER BY g.term DESC) AS from_end
    FROM grouped AS g
)
SELECT
    CAST(r.n AS BIGINT) AS n,
    r.total AS total,
    r.total / CAST(r.n AS DOUBLE) AS mean
FROM running AS r
WHERE r.from_end = 1
