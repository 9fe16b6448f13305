-- A Naive Bayes model's training histogram: each numeric attribute's count per equal-frequency
-- bin (the edges of its histogram_bins table, stats/binning.py) and class, what drift and the
-- model's attribute ranking read (docs/ARCHITECTURE.md, "Drift"). Counts are the fit's: rows,
-- or summed weights for a weighted fit. Every model partition (column wml_part) from its own
-- counts; a (bin, class) without rows has no row.
-- Placeholders: $table (output), $counts (wml_part, attribute, value, class_label, n),
--   $classes (the class table), $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part (INTEGER), attribute (VARCHAR), value (VARCHAR, the bin index
--   '0', '1', ...), class_index (INTEGER), n ($count_type).
-- Rendered by: warehouse_ml/models/learners/bayes/naive_bayes.py.
CREATE TABLE $table AS
SELECT
    c.wml_part AS wml_part,
    k.attribute AS attribute,
    k.value AS value,
    c.class_index AS class_index,
    CAST(k.n AS $count_type) AS n
FROM $counts AS k
JOIN $classes AS c ON c.wml_part = k.wml_part AND c.class_label = k.class_label
WHERE k.n > 0
