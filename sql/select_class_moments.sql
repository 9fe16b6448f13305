-- Per-class moments of numeric attributes, one row per class and one column triple per
-- attribute (non-NULL count, mean, population variance); rows with a NULL target are left out.
-- Placeholders: $source (relation), $target (column), $moment_columns (list of aliased
--   COUNT / AVG / VAR_POP items over src columns, and the partition column if any),
--   $partition_group (list: the partition column, e.g. a fold id, or empty).
-- Output columns: class_label (VARCHAR), then the moment columns.
SELECT CAST(src.$target AS VARCHAR) AS class_label, $moment_columns
FROM $source AS src
WHERE src.$target IS NOT NULL
GROUP BY src.$target, $partition_group
