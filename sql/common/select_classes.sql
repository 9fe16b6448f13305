-- Class frequencies of a source, NULL target included as its own group.
-- Placeholders: $source (relation), $target (column name).
-- Output columns: class_value (the target's own type), class_label (VARCHAR), n (BIGINT rows).
-- Rendered by: warehouse_ml/models/training.py.
SELECT
    src.$target AS class_value,
    CAST(src.$target AS VARCHAR) AS class_label,
    COUNT(*) AS n
FROM $source AS src
GROUP BY src.$target
