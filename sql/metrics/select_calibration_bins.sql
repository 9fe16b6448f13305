-- Reliability diagram of one class: its scores cut into equal-width bins of [0, 1], and per
-- bin the rows, the mean predicted probability and the observed share of the class. Bin i
-- holds edge_i < score <= edge_{i+1} (the first bin also score = 0), with the edges given as
-- literals, as scikit-learn's calibration_curve(strategy="uniform") bins. Empty bins are absent.
-- Placeholders: $scores (relation from select_class_scores.sql), $bin (CASE over s.score giving
--   the 0-based bin), $edges (VALUES e(bin, lower, upper)).
-- Output columns: bin (INTEGER, 0-based), lower, upper (DOUBLE edges), n (BIGINT rows),
--   positives (BIGINT), mean_predicted, observed (DOUBLE). Ordered by bin.
-- Rendered by: warehouse_ml/evaluation/metrics/calibration.py.
WITH binned AS (
    SELECT $bin AS bin, s.score AS score, s.positive AS positive
    FROM $scores AS s
)
SELECT
    CAST(b.bin AS INTEGER) AS bin,
    e.lower AS lower,
    e.upper AS upper,
    CAST(COUNT(*) AS BIGINT) AS n,
    CAST(SUM(b.positive) AS BIGINT) AS positives,
    AVG(b.score) AS mean_predicted,
    SUM(b.positive) / CAST(COUNT(*) AS DOUBLE) AS observed
FROM binned AS b
JOIN $edges AS e ON e.bin = b.bin
GROUP BY b.bin, e.lower, e.upper
ORDER BY bin
