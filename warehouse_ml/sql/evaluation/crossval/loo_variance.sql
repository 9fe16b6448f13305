-- Expression: a class's floored variance of a numeric attribute without one row (population
-- variance, Welford downdate): M2' = M2 - own (x - mean)(x - mean'), so
-- var' = var + own (var - (x - mean)(x - mean')) / (n - own), clipped at 0 against rounding,
-- plus the variance floor epsilon of the FULL data (the one leave-one-out approximation).
-- NULL when the class has no non-NULL value left. For the one row of its class holding the
-- class's extreme value (the farthest from the mean, whose removal can leave a variance many
-- orders of magnitude smaller, beyond the downdate's precision), the exact variance of the
-- other values instead; for any other row the downdate keeps at least about a quarter of M2.
-- Placeholders: $value (the row's value, DOUBLE), $n, $mean, $variance (the class's non-NULL
--   rows, mean and population variance on all rows), $mean_out (loo_mean.sql), $own (0 or 1),
--   $epsilon (the full-data variance floor), $extreme, $n_rest, $variance_rest (the class's
--   extreme value, and the count and population variance of its other values).
-- Output: variance (DOUBLE).
-- Rendered by: warehouse_ml/evaluation/loo.py.
SELECT
    CASE
        WHEN $own = 1 AND $value = $extreme AND $n - $n_rest = 1 THEN $variance_rest + $epsilon
        WHEN $n - $own > 0 THEN GREATEST(
            $variance
                + $own * ($variance - ($value - $mean) * ($value - $mean_out))
                / CAST($n - $own AS DOUBLE),
            CAST(0 AS DOUBLE)
        ) + $epsilon
    END AS variance
