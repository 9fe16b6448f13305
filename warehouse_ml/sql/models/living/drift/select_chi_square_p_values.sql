-- Upper-tail probabilities P(X >= x) of chi-square statistics, as the engines have no
-- chi-square distribution function (docs/ARCHITECTURE.md, "Drift"). For k <= $largest_series_df
-- degrees of freedom the closed-form finite series of the chi-square survival function:
--   k even: exp(-x/2) * sum_{i=0}^{k/2-1} (x/2)^i / i!
--   k odd:  erfc(sqrt(x/2)) + exp(-x/2) * sum_{i=1}^{(k-1)/2} (x/2)^(i-1/2) / Gamma(i+1/2)
-- each term taken as exp(-x/2 + e ln(x/2) - ln d) from a table of ln i! and ln Gamma(i+1/2)
-- (window sums of logarithms over i = 0..999, from three crossed digit tables), erfc by
-- erfc.sql (relative error below 1.2e-7); past that the Wilson-Hilferty normal approximation
-- of (x/k)^(1/3) (absolute error below 2e-5 for k > 1,000). x = 0 gives 1.
-- Placeholders: $tests (relation: item, x DOUBLE statistic, df BIGINT), $digits (VALUES
--   v(d) of 0..9), $ln_root_pi (ln Gamma(1/2)), $largest_series_df (1999), $erfc_series,
--   $erfc_normal (erfc.sql over z.z_series, z.t_series and z.z_normal, z.t_normal).
-- Output columns: item, p_value (DOUBLE in [0, 1]; NULL where x or df is NULL or df < 1).
-- Rendered by: warehouse_ml/models/living/drift.py.
WITH p_digits AS (
    SELECT v.d FROM $digits AS v
),
p_series AS (
    SELECT a.d + 10 * b.d + 100 * c.d AS i
    FROM p_digits AS a CROSS JOIN p_digits AS b CROSS JOIN p_digits AS c
),
p_logs AS (
    SELECT
        s.i,
        SUM(CASE WHEN s.i = 0 THEN 0.0 ELSE LN(CAST(s.i AS DOUBLE)) END) OVER (
            ORDER BY s.i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS ln_factorial,
        SUM(CASE WHEN s.i = 0 THEN $ln_root_pi ELSE LN(s.i - 0.5) END) OVER (
            ORDER BY s.i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS ln_gamma_half
    FROM p_series AS s
),
p_sums AS (
    SELECT
        k.item,
        SUM(EXP(
            -k.x / 2
            + CASE WHEN k.df % 2 = 0 THEN l.i ELSE l.i - 0.5 END * LN(k.x / 2)
            - CASE WHEN k.df % 2 = 0 THEN l.ln_factorial ELSE l.ln_gamma_half END
        )) AS series_sum
    FROM $tests AS k
    JOIN p_logs AS l
        ON k.x > 0 AND k.df <= $largest_series_df
        AND 2 * l.i < k.df AND (k.df % 2 = 0 OR l.i >= 1)
    GROUP BY k.item
),
p_arguments AS (
    SELECT
        k.item,
        k.x,
        k.df,
        SQRT(GREATEST(k.x, 0.0) / 2) AS z_series,
        (
            POWER(GREATEST(k.x, 0.0) / CAST(k.df AS DOUBLE), 1.0 / 3)
            - (1 - 2.0 / (9 * CAST(k.df AS DOUBLE)))
        ) / SQRT(2.0 / (9 * CAST(k.df AS DOUBLE))) / SQRT(2.0) AS z_normal
    FROM $tests AS k
    WHERE k.df >= 1
),
p_z AS (
    SELECT
        a.*,
        1.0 / (1.0 + 0.5 * ABS(a.z_series)) AS t_series,
        1.0 / (1.0 + 0.5 * ABS(a.z_normal)) AS t_normal
    FROM p_arguments AS a
)
SELECT
    k.item,
    CASE
        WHEN z.x IS NULL THEN NULL
        WHEN z.x <= 0 THEN 1.0
        ELSE LEAST(1.0, GREATEST(0.0, CASE
            WHEN z.df > $largest_series_df THEN 0.5 * ($erfc_normal)
            WHEN z.df % 2 = 0 THEN COALESCE(s.series_sum, 0.0)
            ELSE ($erfc_series) + COALESCE(s.series_sum, 0.0)
        END))
    END AS p_value
FROM $tests AS k
LEFT JOIN p_z AS z ON z.item = k.item
LEFT JOIN p_sums AS s ON s.item = k.item
