-- Expression: a class's floored variance of a numeric attribute without one row (population
-- variance, Welford downdate): M2' = M2 - own (x - mean)(x - mean'), so
-- var' = var + own (var - (x - mean)(x - mean')) / (n - own), clipped at 0 against rounding,
-- plus the variance floor epsilon of the FULL data (the one leave-one-out approximation).
-- NULL when the class has no non-NULL value left.
-- Placeholders: $value (the row's value, DOUBLE), $n, $mean, $variance (the class's non-NULL
--   rows, mean and population variance on all rows), $mean_out (loo_mean.sql), $own (0 or 1),
--   $epsilon (the full-data variance floor).
-- Output: variance (DOUBLE).
SELECT
    CASE
        WHEN $n - $own > 0 THEN GREATEST(
            $variance
                + $own * ($variance - ($value - $mean) * ($value - $mean_out))
                / CAST($n - $own AS DOUBLE),
            CAST(0 AS DOUBLE)
        ) + $epsilon
    END AS variance
