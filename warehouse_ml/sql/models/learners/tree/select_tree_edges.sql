-- Equal-frequency edges of one numeric attribute for every model of a training, the thresholds
-- a decision tree may split it at, cut on each model's training rows' weights: the distinct
-- values in ascending order each fall in tile CEIL(cumulative weight * $bins / total weight)
-- (the tile their last unit of weight falls in), and a tile's edge is its largest value. So an
-- integer weight w counts as w copies of the row (unweighted: each row weighs 1). The rows are
-- read once, counted per (group, value); model m's count of a value is the exact sum over the
-- groups whose rows count for m ($counted: cross-validation's folds other than m, a member's own
-- group, every row for a fit's one model, whose $group is NULL, -1), made DOUBLE after the sum,
-- so each model's edges are those of its own rows. Rows with a NULL value or a NULL target are
-- left out.
-- Placeholders: $source (relation), $target (class column), $column (the numeric column),
--   $attribute (its name, a string value), $bins (number of tiles, integer >= 1), $count
--   (COUNT(*), or the exact sum of a weight column: counting.row_count over src), $group
--   (the row's fold or member, an expression over src; NULL for a fit), $counted (whether the
--   rows of group h.grouped count for model m.model: models/members.py's counted), $models
--   (VALUES m(model): the models' numbers).
-- Output columns: model (the model's number), attribute (VARCHAR), tile (the tile number,
--   >= 1), upper (DOUBLE, the largest value in the tile), lower (DOUBLE, the smallest: -infinity
--   in the first is how a fit finds one).
-- Rendered by: warehouse_ml/models/learners/tree/edges.py.
SELECT q.model AS model, $attribute AS attribute, q.tile AS tile, MAX(q.x) AS upper,
    MIN(q.x) AS lower
FROM (
    SELECT
        c.model AS model,
        c.x AS x,
        CEIL(
            SUM(c.n) OVER (
                PARTITION BY c.model ORDER BY c.x ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
            )
            * $bins / SUM(c.n) OVER (PARTITION BY c.model)
        ) AS tile
    FROM (
        SELECT m.model AS model, h.x AS x, CAST(SUM(h.n) AS DOUBLE) AS n
        FROM (
            SELECT COALESCE($group, -1) AS grouped, CAST(src.$column AS DOUBLE) AS x, $count AS n
            FROM $source AS src
            WHERE src.$column IS NOT NULL AND src.$target IS NOT NULL
            GROUP BY COALESCE($group, -1), CAST(src.$column AS DOUBLE)
        ) AS h
        CROSS JOIN $models
        WHERE $counted
        GROUP BY m.model, h.x
    ) AS c
) AS q
GROUP BY q.model, q.tile
