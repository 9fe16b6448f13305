-- Equal-frequency tiles of one numeric attribute: the largest value of each of $bins tiles of
-- its non-NULL training values (rows with a NULL target are left out). The result depends only
-- on the sorted multiset of values, so ties in the NTILE ordering cannot change it.
-- Placeholders: $source (relation), $target (class column), $column (the numeric column),
--   $attribute (its name, a string value), $bins (number of tiles, integer >= 1).
-- Output columns: attribute (VARCHAR), tile (BIGINT), upper (DOUBLE, largest value in the tile),
--   lower (DOUBLE, smallest value in the tile: -infinity in the first is how a fit finds one).
-- Rendered by: warehouse_ml/stats/binning.py.
SELECT $attribute AS attribute, t.tile AS tile, MAX(t.x) AS upper, MIN(t.x) AS lower
FROM (
    SELECT
        CAST(src.$column AS DOUBLE) AS x,
        NTILE($bins) OVER (ORDER BY CAST(src.$column AS DOUBLE)) AS tile
    FROM $source AS src
    WHERE src.$column IS NOT NULL AND src.$target IS NOT NULL
) AS t
GROUP BY t.tile
