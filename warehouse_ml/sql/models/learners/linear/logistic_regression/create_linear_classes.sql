-- Class table of a linear model, read as every model's classes table is (scoring and
-- explanations take log_prior as the class's base term): the class's intercept.
-- Placeholders: $table (output), $class_rows (VALUES r: wml_part, class_index, class_label, n,
--   intercept), $count_type (BIGINT rows, or DOUBLE summed weights: counting.count_type).
-- Output columns: wml_part (INTEGER partition), class_index (INTEGER, 0-based in classes_
--   order), class_label (VARCHAR), n (BIGINT rows, or DOUBLE summed weights), log_prior
--   (DOUBLE: the class's intercept, its log score, up to a constant shared by the classes, at
--   the training means with every indicator 0; 0 for the first class of a binary model).
-- Rendered by: warehouse_ml/models/learners/shared/design.py.
CREATE TABLE $table AS
SELECT
    CAST(r.wml_part AS INTEGER) AS wml_part,
    CAST(r.class_index AS INTEGER) AS class_index,
    CAST(r.class_label AS VARCHAR) AS class_label,
    CAST(r.n AS $count_type) AS n,
    CAST(r.intercept AS DOUBLE) AS log_prior
FROM $class_rows
