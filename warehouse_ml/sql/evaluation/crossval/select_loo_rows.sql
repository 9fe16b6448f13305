-- Rows scored by leave-one-out (loo.py): those with a class, each its own fold, with one 0/1
-- column per class telling whether the row is of that class (how much it adds to that class's
-- counts; loo_own.sql). The names the rows get are chosen by loo.py so that no source column has
-- them.
-- Placeholders: $source (relation), $target (the class column), $ordinal (the row's 1-based
--   ordinal among ALL source rows: ROW_NUMBER() OVER (ORDER BY src.<unique key>), or
--   ROW_NUMBER() OVER () in scan order when there is no key), $own_columns (list of aliased
--   loo_own.sql items over src, one per class), $row, $fold (the names of the ordinal and of
--   the fold).
-- Output columns: those of $source, $row (BIGINT, the ordinal), the own columns (INTEGER 0 or
--   1), $fold (INTEGER, the ordinal - 1).
-- Rendered by: warehouse_ml/evaluation/loo.py.
SELECT n.*, CAST(n.$row - 1 AS INTEGER) AS $fold
FROM (SELECT src.*, $ordinal AS $row, $own_columns FROM $source AS src) AS n
WHERE n.$target IS NOT NULL
