-- Equal-frequency edges of one numeric attribute, the thresholds a decision tree may split it
-- at, cut on the rows' weights: the distinct values in ascending order each fall in tile
-- CEIL(cumulative weight * $bins / total weight) (the tile their last unit of weight falls in),
-- and a tile's edge is its largest value. So an integer weight w counts as w copies of the row
-- (unweighted: each row weighs 1). Rows with a NULL value or a NULL target are left out.
-- Placeholders: $source (relation), $target (class column), $column (the numeric column),
--   $attribute (its name, a string value), $bins (number of tiles, integer >= 1), $count
--   (COUNT(*), or the exact sum of a weight column: counting.row_count over src).
-- Output columns: attribute (VARCHAR), tile (the tile number, >= 1), upper (DOUBLE, the
--   largest value in the tile).
-- Rendered by: warehouse_ml/models/learners/decision_tree.py.
SELECT $attribute AS attribute, q.tile AS tile, MAX(q.x) AS upper
FROM (
    SELECT
        c.x AS x,
        CEIL(
            SUM(c.n) OVER (ORDER BY c.x ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
            * $bins / SUM(c.n) OVER ()
        ) AS tile
    FROM (
        SELECT CAST(src.$column AS DOUBLE) AS x, CAST($count AS DOUBLE) AS n
        FROM $source AS src
        WHERE src.$column IS NOT NULL AND src.$target IS NOT NULL
        GROUP BY CAST(src.$column AS DOUBLE)
    ) AS c
) AS q
GROUP BY q.tile
