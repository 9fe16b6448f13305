-- Design table of a linear model: each column of its design matrix after the intercept, in
-- coefficient order (models/learners/shared/design.py): a numeric attribute's standardised
-- value, or one indicator per level of a categorical attribute.
-- Placeholders: $table (output), $design_rows (VALUES d: column_index, attribute, kind, level,
--   mean, scale).
-- Output columns: column_index (INTEGER, 1-based: 0 is the intercept), attribute (VARCHAR),
--   kind (VARCHAR: categorical or numeric), level (VARCHAR, the value as counted, as text;
--   NULL for a numeric column), mean (DOUBLE, the training mean; NULL for an indicator),
--   scale (DOUBLE, the population standard deviation or 1; NULL for an indicator).
-- Rendered by: warehouse_ml/models/learners/shared/design.py.
CREATE TABLE $table AS
SELECT
    CAST(d.column_index AS INTEGER) AS column_index,
    CAST(d.attribute AS VARCHAR) AS attribute,
    CAST(d.kind AS VARCHAR) AS kind,
    CAST(d.level AS VARCHAR) AS level,
    CAST(d.mean AS DOUBLE) AS mean,
    CAST(d.scale AS DOUBLE) AS scale
FROM $design_rows
