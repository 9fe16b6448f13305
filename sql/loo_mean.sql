-- Expression: a class's mean of a numeric attribute without one row,
-- mean' = (n mean - own x) / (n - own) = mean - own (x - mean) / (n - own);
-- NULL when the class has no non-NULL value left (or none at all).
-- Placeholders: $value (the row's value, DOUBLE; NULL: own must not matter), $n (the class's
--   non-NULL rows), $mean (its mean), $own (1 when the row is of this class, else 0).
-- Output: mean (DOUBLE).
SELECT
    CASE
        WHEN $n - $own > 0 THEN $mean - $own * ($value - $mean) / CAST($n - $own AS DOUBLE)
    END AS mean
