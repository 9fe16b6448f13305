-- Rows scored by leave-one-out: those with a class, each its own fold, with one 0/1 column per
-- class telling whether the row is of that class (how much it adds to that class's counts;
-- loo_own.sql).
-- Placeholders: $source (relation), $target (the class column), $ordinal (the row's 1-based
--   ordinal among ALL source rows: ROW_NUMBER() OVER (ORDER BY src.<unique key>), or
--   ROW_NUMBER() OVER () in scan order when there is no key), $own_columns (list of aliased
--   loo_own.sql items over src, wml_own_<i> per class i).
-- Output columns: those of $source, wml_row (BIGINT, the ordinal), wml_own_<i> (INTEGER 0 or 1)
--   per class, fold (INTEGER, wml_row - 1).
WITH numbered AS (
    SELECT src.*, $ordinal AS wml_row, $own_columns FROM $source AS src
)
SELECT n.*, CAST(n.wml_row - 1 AS INTEGER) AS fold
FROM numbered AS n
WHERE n.$target IS NOT NULL
