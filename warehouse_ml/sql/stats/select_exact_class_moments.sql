-- Per-class moments of numeric attributes that are identical on every run, thread count and
-- engine: a parallel DOUBLE SUM depends on the order in which threads add their parts, so
-- each attribute is scaled, per class (and partition), by its largest finite magnitude u in
-- that class (values then lie in [-1, 1]); the scaled values, and then the squared deviations
-- from the class mean scaled by the class's range v, are summed as DECIMAL(38, 26) (exact,
-- order-free sums; each term rounded to 1e-26, far below DOUBLE precision of the totals; up
-- to 10^12 rows), and the sums are scaled back:
--   mean = sum(x / u) / n * u,   variance = sum(((x - mean) / v)^2) / n * v^2 (population).
-- The scale is the class's own, so a class's moments keep full DOUBLE precision whatever the
-- magnitudes of the other classes (one 1e25 outlier in one class leaves the others intact).
-- NaN and +-inf are not scaled (ABS(x) <= the largest DOUBLE is false for them on DuckDB,
-- PostgreSQL and Spark): an attribute that has one gets the plain AVG / VAR_POP, non-finite,
-- which the fit then refuses by name (validation.check_gaussian). Rows with a NULL target are
-- left out.
-- Placeholders: $source (relation), $target (column), $scales (list: per attribute i,
--   "COALESCE(NULLIF(MAX(<finite |x|>), 0), 1) AS wml_u_<i>"), $firsts (list: per attribute,
--   n_<i>, mean_<i>, wml_bad_<i>, wml_vp_<i>, wml_v_<i>, wml_hi_<i>, wml_lo_<i> over src and
--   the class's scales u), $deviations (list: per attribute wml_q_<i> over src and the first
--   moments f), $moments (list: per attribute n_<i>, mean_<i>, var_<i>, extreme_<i> over f
--   and q), $partition_columns (list:
--   "src.<partition> AS wml_part", or "0 AS wml_part" for one partition), $partition_group
--   (the column, unaliased, or empty), $same_partition_u (u.wml_part = src.<partition>, or TRUE), $same_partition
--   (f.wml_part = src.<partition>, or TRUE), $same_partition_q (q.wml_part = f.wml_part, or
--   TRUE), $partition_output (list: f.wml_part).
-- Output columns: class_label (VARCHAR), wml_part, n_<i> (BIGINT), mean_<i> (DOUBLE),
--   var_<i> (DOUBLE), extreme_<i> (DOUBLE: the finite value farthest from the class mean, the
--   largest on a tie) for each attribute i.
-- Rendered by: warehouse_ml/stats/moments.py.
WITH scales AS (
    SELECT src.$target AS class_value, $partition_columns, $scales
    FROM $source AS src
    WHERE src.$target IS NOT NULL
    GROUP BY src.$target, $partition_group
),
firsts AS (
    SELECT src.$target AS class_value, $partition_columns, $firsts
    FROM $source AS src
    JOIN scales AS u ON u.class_value = src.$target AND $same_partition_u
    WHERE src.$target IS NOT NULL
    GROUP BY src.$target, $partition_group
),
seconds AS (
    SELECT src.$target AS class_value, $partition_columns, $deviations
    FROM $source AS src
    JOIN firsts AS f ON f.class_value = src.$target AND $same_partition
    WHERE src.$target IS NOT NULL
    GROUP BY src.$target, $partition_group
)
SELECT CAST(f.class_value AS VARCHAR) AS class_label, $partition_output, $moments
FROM firsts AS f
JOIN seconds AS q ON q.class_value = f.class_value AND $same_partition_q
