-- Reliability diagram of one class: its scores cut into equal-width bins of [0, 1], and per
-- bin the rows, the mean predicted probability and the observed share of the class. Bin i
-- holds edge_i < score <= edge_{i+1} (the first bin also score = 0), with the edges given as
-- literals, as scikit-learn's calibration_curve(strategy="uniform") bins. Empty bins are absent.
-- Placeholders: $scores (relation from select_class_scores.sql), $bin (CASE over s.score giving
--   the 0-based bin), $edges (VALUES e(bin, lower, upper)), $count_type (BIGINT rows, or
--   DOUBLE summed weights: every row then counts as its weight), $mean_predicted (AVG(b.score),
--   or the weighted mean SUM(b.score * b.weight) / SUM(b.weight)).
-- Output columns: bin (INTEGER, 0-based), lower, upper (DOUBLE edges), n, positives
--   ($count_type), mean_predicted, observed (DOUBLE). Ordered by bin.
-- Rendered by: warehouse_ml/evaluation/metrics/calibration.py.
WITH binned AS (
    SELECT $bin AS bin, s.score AS score, s.positive AS positive, s.weight AS weight
    FROM $scores AS s
)
SELECT
    CAST(b.bin AS INTEGER) AS bin,
    e.lower AS lower,
    e.upper AS upper,
    CAST(SUM(b.weight) AS $count_type) AS n,
    CAST(SUM(b.positive * b.weight) AS $count_type) AS positives,
    $mean_predicted AS mean_predicted,
    SUM(b.positive * b.weight) / CAST(SUM(b.weight) AS DOUBLE) AS observed
FROM binned AS b
JOIN $edges AS e ON e.bin = b.bin
GROUP BY b.bin, e.lower, e.upper
ORDER BY bin
