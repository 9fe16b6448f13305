-- Class frequencies of a source, NULL target included as its own group.
-- Placeholders: $source (relation), $target (column name), $count (COUNT(*), or the exact sum
--   of a weight column: counting.row_count).
-- Output columns: class_value (the target's own type), class_label (VARCHAR), n (BIGINT rows,
--   or DECIMAL summed weights), n_rows (BIGINT rows).
-- Rendered by: warehouse_ml/models/training.py.
SELECT
    src.$target AS class_value,
    CAST(src.$target AS VARCHAR) AS class_label,
    $count AS n,
    COUNT(*) AS n_rows
FROM $source AS src
GROUP BY src.$target
