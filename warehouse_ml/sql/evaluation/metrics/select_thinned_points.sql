-- A curve's points thinned to about $max_points per class, for drawing a curve of many
-- distinct scores: the first point, the last, and every step-th between them, step =
-- CEIL(points / $max_points); the points kept are the curve's own (exact), in order.
-- Placeholders: $points (a curve: class_index, point (0-based), ... ordered columns),
--   $columns (list: the curve's columns, read from t), $max_points (integer >= 2).
-- Output columns: those of $points, ordered by class_index, point.
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
WITH counted AS (
    SELECT x.*, MAX(x.point) OVER (PARTITION BY x.class_index) AS wml_last
    FROM $points AS x
)
SELECT $columns
FROM counted AS t
WHERE t.point = 0 OR t.point = t.wml_last
    OR MOD(t.point, CAST(CEIL((t.wml_last + 1) / CAST($max_points AS DOUBLE)) AS BIGINT)) = 0
ORDER BY t.class_index, t.point
