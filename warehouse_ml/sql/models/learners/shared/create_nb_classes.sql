-- Class table of the models of each partition (wml_part): smoothed log prior per class.
-- P(c) = (n_c + prior_alpha) / (N + prior_alpha * K); K = number of classes.
-- Placeholders: $table (output), $class_rows (VALUES r: class_index, class_label, n, n_total =
--   N of the row's model, wml_part: the row's model partition), $prior_alpha (number), $n_classes (K),
--   $count_type (BIGINT rows, or DOUBLE summed weights: counting.count_type).
-- Output columns: wml_part (INTEGER partition), class_index (INTEGER, 0-based in classes_
--   order), class_label (VARCHAR), n (BIGINT rows, or DOUBLE summed weights), log_prior (DOUBLE, natural log).
-- Rendered by: warehouse_ml/models/learners/shared/classes.py.
CREATE TABLE $table AS
SELECT
    CAST(r.wml_part AS INTEGER) AS wml_part,
    CAST(r.class_index AS INTEGER) AS class_index,
    CAST(r.class_label AS VARCHAR) AS class_label,
    CAST(r.n AS $count_type) AS n,
    LN(CAST(r.n AS DOUBLE) + $prior_alpha)
        - LN(CAST(r.n_total AS DOUBLE) + $prior_alpha * $n_classes) AS log_prior
FROM $class_rows
