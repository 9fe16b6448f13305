-- Rows per (fold, class) of a fold assignment; NULL classes are left out.
-- Placeholders: $source (the fold assignment with the target), $target, $fold (columns), $count
--   (COUNT(*), or the exact sum of a weight column: counting.row_count).
-- Output columns: fold (INTEGER), class_label (VARCHAR), n (BIGINT rows, or DECIMAL summed
--   weights), n_rows (BIGINT rows).
-- Rendered by: warehouse_ml/evaluation/out_of_fold.py.
SELECT
    src.$fold AS fold,
    CAST(src.$target AS VARCHAR) AS class_label,
    $count AS n,
    COUNT(*) AS n_rows
FROM $source AS src
WHERE src.$target IS NOT NULL
GROUP BY src.$fold, src.$target
