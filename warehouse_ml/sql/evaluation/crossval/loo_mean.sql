-- Expression: a class's mean of a numeric attribute without one row,
-- mean' = (n mean - own x) / (n - own) = mean - own (x - mean) / (n - own);
-- NULL when the class has no non-NULL value left (or none at all). For the one row of its
-- class holding the class's extreme value, the exact mean of the other values instead: when
-- that value dominates the sum (one 1e25 among values near 1), the downdate cancels every
-- significant digit.
-- Placeholders: $value (the row's value, DOUBLE; NULL: own must not matter), $n (the class's
--   non-NULL rows), $mean (its mean), $own (1 when the row is of this class, else 0),
--   $extreme (the class's value farthest from its mean), $n_rest, $mean_rest (count and mean
--   of the class's other values).
-- Output: mean (DOUBLE).
-- Rendered by: warehouse_ml/evaluation/loo.py.
SELECT
    CASE
        WHEN $own = 1 AND $value = $extreme AND $n - $n_rest = 1 THEN $mean_rest
        WHEN $n - $own > 0 THEN $mean - $own * ($value - $mean) / CAST($n - $own AS DOUBLE)
    END AS mean
