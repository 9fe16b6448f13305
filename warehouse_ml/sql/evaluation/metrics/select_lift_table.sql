-- Lift table for one class: rows ordered by decreasing score (ties: negatives first, so the
-- table is deterministic and pessimistic about ties), cut into quantiles of that order at
-- rank <= FLOOR(fraction * n + 0.5) for each cumulative fraction.
-- accuracy = positives / size (the class's share in the quantile), lift = accuracy / base
-- rate, cumulative_* over the quantiles so far, gain = cumulative positives / all positives.
-- A weighted table counts each row as its weight: the rank is then the cumulative weight (rows
-- ordered by score, positives last, then weight) and quantiles are cut on it.
-- Placeholders: $scores (relation from select_class_scores.sql), $bucket (CASE over
--   r.wml_rank and r.wml_rows giving the 1-based quantile), $quantiles (VALUES
--   q(quantile, fraction)), $rank (ROW_NUMBER() OVER (ORDER BY s.score DESC, s.positive), or
--   the cumulative SUM(s.weight) in that order), $rows (COUNT(*) OVER (), or
--   SUM(s.weight) OVER ()), $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: quantile (INTEGER, 1-based), fraction (DOUBLE, cumulative depth),
--   size, positives ($count_type), accuracy, lift, cumulative_size,
--   cumulative_positives ($count_type), cumulative_accuracy, cumulative_lift, gain,
--   min_score, max_score (DOUBLE). Ordered by quantile.
-- Rendered by: warehouse_ml/evaluation/metrics/lift.py.
WITH ranked AS (
    SELECT
        s.score AS score,
        s.positive AS positive,
        s.weight AS weight,
        $rank AS wml_rank,
        $rows AS wml_rows
    FROM $scores AS s
),
bucketed AS (
    SELECT $bucket AS quantile, r.score AS score, r.positive AS positive, r.weight AS weight
    FROM ranked AS r
),
per_quantile AS (
    SELECT
        b.quantile AS quantile,
        SUM(b.weight) AS size,
        SUM(b.positive * b.weight) AS positives,
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
    CAST(c.size AS $count_type) AS size,
    CAST(c.positives AS $count_type) AS positives,
    c.positives / CAST(NULLIF(c.size, 0) AS DOUBLE) AS accuracy,
    (c.positives / CAST(NULLIF(c.size, 0) AS DOUBLE))
        / NULLIF(c.n_positives / CAST(NULLIF(c.n_rows, 0) AS DOUBLE), 0) AS lift,
    CAST(c.cumulative_size AS $count_type) AS cumulative_size,
    CAST(c.cumulative_positives AS $count_type) AS cumulative_positives,
    c.cumulative_positives / CAST(NULLIF(c.cumulative_size, 0) AS DOUBLE) AS cumulative_accuracy,
    (c.cumulative_positives / CAST(NULLIF(c.cumulative_size, 0) AS DOUBLE))
        / NULLIF(c.n_positives / CAST(NULLIF(c.n_rows, 0) AS DOUBLE), 0) AS cumulative_lift,
    c.cumulative_positives / CAST(NULLIF(c.n_positives, 0) AS DOUBLE) AS gain,
    c.min_score AS min_score,
    c.max_score AS max_score
FROM cumulative AS c
ORDER BY quantile
