-- Lift table for one class: rows ordered by decreasing score (ties: negatives first, so the
-- table is deterministic and pessimistic about ties), cut into quantiles of that order at
-- rank <= FLOOR(fraction * n + 0.5) for each cumulative fraction.
-- accuracy = positives / size (the class's share in the quantile), lift = accuracy / base
-- rate, cumulative_* over the quantiles so far, gain = cumulative positives / all positives.
-- Placeholders: $scores (relation from select_class_scores.sql), $bucket (CASE over
--   r.wml_rank and r.wml_rows giving the 1-based quantile), $quantiles (VALUES
--   q(quantile, fraction)).
-- Output columns: quantile (INTEGER, 1-based), fraction (DOUBLE, cumulative depth),
--   size (BIGINT), positives (BIGINT), accuracy, lift, cumulative_size (BIGINT),
--   cumulative_positives (BIGINT), cumulative_accuracy, cumulative_lift, gain,
--   min_score, max_score (DOUBLE). Ordered by quantile.
-- Rendered by: warehouse_ml/evaluation/metrics/lift.py.
WITH ranked AS (
    SELECT
        s.score AS score,
        s.positive AS positive,
        ROW_NUMBER() OVER (ORDER BY s.score DESC, s.positive) AS wml_rank,
        COUNT(*) OVER () AS wml_rows
    FROM $scores AS s
),
bucketed AS (
    SELECT $bucket AS quantile, r.score AS score, r.positive AS positive FROM ranked AS r
),
per_quantile AS (
    SELECT
        b.quantile AS quantile,
        COUNT(*) AS size,
        SUM(b.positive) AS positives,
        MIN(b.score) AS min_score,
        MAX(b.score) AS max_score
    FROM bucketed AS b
    GROUP BY b.quantile
),
totals AS (
    SELECT SUM(p.size) AS n_rows, SUM(p.positives) AS n_positives FROM per_quantile AS p
),
filled AS (
    SELECT
        q.quantile AS quantile,
        q.fraction AS fraction,
        COALESCE(p.size, 0) AS size,
        COALESCE(p.positives, 0) AS positives,
        p.min_score AS min_score,
        p.max_score AS max_score,
        t.n_rows AS n_rows,
        t.n_positives AS n_positives
    FROM $quantiles
    CROSS JOIN totals AS t
    LEFT JOIN per_quantile AS p ON p.quantile = q.quantile
),
cumulative AS (
    SELECT
        f.*,
        SUM(f.size) OVER (ORDER BY f.quantile ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            AS cumulative_size,
        SUM(f.positives) OVER (
            ORDER BY f.quantile ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS cumulative_positives
    FROM filled AS f
)
SELECT
    CAST(c.quantile AS INTEGER) AS quantile,
    c.fraction AS fraction,
    CAST(c.size AS BIGINT) AS size,
    CAST(c.positives AS BIGINT) AS positives,
    c.positives / CAST(NULLIF(c.size, 0) AS DOUBLE) AS accuracy,
    (c.positives / CAST(NULLIF(c.size, 0) AS DOUBLE))
        / NULLIF(c.n_positives / CAST(NULLIF(c.n_rows, 0) AS DOUBLE), 0) AS lift,
    CAST(c.cumulative_size AS BIGINT) AS cumulative_size,
    CAST(c.cumulative_positives AS BIGINT) AS cumulative_positives,
    c.cumulative_positives / CAST(NULLIF(c.cumulative_size, 0) AS DOUBLE) AS cumulative_accuracy,
    (c.cumulative_positives / CAST(NULLIF(c.cumulative_size, 0) AS DOUBLE))
        / NULLIF(c.n_positives / CAST(NULLIF(c.n_rows, 0) AS DOUBLE), 0) AS cumulative_lift,
    c.cumulative_positives / CAST(NULLIF(c.n_positives, 0) AS DOUBLE) AS gain,
    c.min_score AS min_score,
    c.max_score AS max_score
FROM cumulative AS c
ORDER BY quantile
