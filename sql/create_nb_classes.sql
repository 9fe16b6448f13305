-- Class table of a model: smoothed log prior per class.
-- P(c) = (n_c + prior_alpha) / (N + prior_alpha * K); K = number of classes.
-- Placeholders: $table (output), $class_rows (VALUES: class_index, class_label, n),
--   $prior_alpha (number), $n_total (rows with a target), $n_classes (K).
-- Output columns: class_index (INTEGER, 0-based in classes_ order), class_label (VARCHAR),
--   n (BIGINT rows), log_prior (DOUBLE, natural log).
CREATE TABLE $table AS
SELECT
    CAST(r.class_index AS INTEGER) AS class_index,
    CAST(r.class_label AS VARCHAR) AS class_label,
    CAST(r.n AS BIGINT) AS n,
    LN(CAST(r.n AS DOUBLE) + $prior_alpha)
        - LN(CAST($n_total AS DOUBLE) + $prior_alpha * $n_classes) AS log_prior
FROM $class_rows
