-- Expression: the complementary error function erfc(z), by the Chebyshev fit of Numerical
-- Recipes (erfcc; relative error below 1.2e-7 for every z), as the engines have no erfc:
-- erfc(|z|) = t * exp(-z^2 - 1.26551223 + t * (1.00002368 + ...)) with t = 1 / (1 + |z| / 2),
-- and erfc(z) = 2 - erfc(|z|) for z < 0.
-- Placeholders: $z (DOUBLE column), $t (DOUBLE column holding 1 / (1 + 0.5 * ABS(z))).
-- Output: erfc (DOUBLE in [0, 2]).
-- Rendered by: warehouse_ml/models/living/drift.py.
SELECT
    CASE WHEN $z >= 0 THEN 0.0 ELSE 2.0 END
    + CASE WHEN $z >= 0 THEN 1.0 ELSE -1.0 END * $t * EXP(
        -$z * $z - 1.26551223 + $t * (1.00002368 + $t * (0.37409196 + $t * (0.09678418
        + $t * (-0.18628806 + $t * (0.27886807 + $t * (-1.13520398 + $t * (1.48851587
        + $t * (-0.82215223 + $t * 0.17087277))))))))
    ) AS erfc
