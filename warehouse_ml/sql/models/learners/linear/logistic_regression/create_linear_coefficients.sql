-- Coefficient table of a linear model: one row per model partition, class and design column.
-- Placeholders: $table (output), $coefficient_rows (VALUES c: wml_part, class_index,
--   column_index, coefficient, std_error, z_value, p_value).
-- Output columns: wml_part (INTEGER partition), class_index (INTEGER, 0-based in classes_
--   order), column_index (INTEGER: 0 the intercept, else the design table's column),
--   coefficient (DOUBLE, log-odds per unit of the standardised value or per indicator),
--   std_error (DOUBLE, a logistic regression's from the penalised Hessian at the solution;
--   NULL when not positive, and for a linear discriminant or SVM), z_value (DOUBLE, coefficient /
--   std_error), p_value (DOUBLE, two-sided Wald test).
-- Rendered by: warehouse_ml/models/learners/shared/design.py.
CREATE TABLE $table AS
SELECT
    CAST(c.wml_part AS INTEGER) AS wml_part,
    CAST(c.class_index AS INTEGER) AS class_index,
    CAST(c.column_index AS INTEGER) AS column_index,
    CAST(c.coefficient AS DOUBLE) AS coefficient,
    CAST(c.std_error AS DOUBLE) AS std_error,
    CAST(c.z_value AS DOUBLE) AS z_value,
    CAST(c.p_value AS DOUBLE) AS p_value
FROM $coefficient_rows
