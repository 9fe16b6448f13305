-- Interpolated precision at chosen recall levels for one class: the largest precision of any
-- curve point whose recall is >= the level (NULL when no point reaches it).
-- Placeholders: $points (relation from select_precision_recall_points.sql), $class_index
--   (INTEGER), $levels (VALUES l(level_index, recall_level)).
-- Output columns: recall_level (DOUBLE), "precision" (DOUBLE). Ordered by recall_level.
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
SELECT
    l.recall_level AS recall_level,
    MAX(p."precision") AS "precision"
FROM $levels
LEFT JOIN $points AS p ON p.class_index = $class_index AND p.recall >= l.recall_level
GROUP BY l.level_index, l.recall_level
ORDER BY l.level_index
