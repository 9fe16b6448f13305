-- The mean of the interpolated precisions, e.g. the three-point average precision at recall
-- 20%, 50% and 80%. A level no point reaches counts as precision 0.
-- Placeholders: $interpolated (relation from select_interpolated_precision.sql).
-- Output columns: interpolated_average_precision (DOUBLE), n_levels (BIGINT).
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
SELECT
    AVG(COALESCE(i."precision", CAST(0 AS DOUBLE))) AS interpolated_average_precision,
    COUNT(*) AS n_levels
FROM $interpolated AS i
