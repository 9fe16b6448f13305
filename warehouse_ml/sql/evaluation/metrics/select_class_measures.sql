-- Per-class measures from the confusion matrix, one class against the rest. A ratio whose
-- denominator is 0 is 0 (scikit-learn's zero_division=0).
-- F = (1 + b^2) tp / ((1 + b^2) tp + b^2 fn + fp).
-- Placeholders: $cells (relation from select_confusion_cells.sql), $beta_squared (DOUBLE b^2),
--   $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: class_index (INTEGER), class_label (label), support (true rows),
--   predicted (rows predicted as the class), tp, fp, fn, tn (all $count_type: rows or weights), "precision",
--   recall (= TPR), specificity (= TNR), fpr, f_measure (DOUBLE fractions).
-- Rendered by: warehouse_ml/evaluation/metrics/confusion.py.
WITH cells AS (
    SELECT x.* FROM $cells AS x
),
actual AS (
    SELECT
        c.true_index AS class_index,
        c.true_class AS class_label,
        SUM(c.n) AS support,
        SUM(CASE WHEN c.true_index = c.predicted_index THEN c.n ELSE 0 END) AS tp
    FROM cells AS c
    GROUP BY c.true_index, c.true_class
),
predicted AS (
    SELECT c.predicted_index AS class_index, SUM(c.n) AS n_predicted
    FROM cells AS c
    GROUP BY c.predicted_index
),
overall AS (
    SELECT SUM(c.n) AS n_total FROM cells AS c
),
class_counts AS (
    SELECT
        a.class_index AS class_index,
        a.class_label AS class_label,
        CAST(a.support AS $count_type) AS support,
        CAST(p.n_predicted AS $count_type) AS predicted,
        CAST(a.tp AS $count_type) AS tp,
        CAST(p.n_predicted - a.tp AS $count_type) AS fp,
        CAST(a.support - a.tp AS $count_type) AS fn,
        CAST(t.n_total - a.support - p.n_predicted + a.tp AS $count_type) AS tn
    FROM actual AS a
    JOIN predicted AS p ON p.class_index = a.class_index
    CROSS JOIN overall AS t
)
SELECT
    CAST(k.class_index AS INTEGER) AS class_index,
    k.class_label AS class_label,
    k.support AS support,
    k.predicted AS predicted,
    k.tp AS tp,
    k.fp AS fp,
    k.fn AS fn,
    k.tn AS tn,
    CASE WHEN k.tp + k.fp = 0 THEN CAST(0 AS DOUBLE)
        ELSE k.tp / CAST(k.tp + k.fp AS DOUBLE) END AS "precision",
    CASE WHEN k.tp + k.fn = 0 THEN CAST(0 AS DOUBLE)
        ELSE k.tp / CAST(k.tp + k.fn AS DOUBLE) END AS recall,
    CASE WHEN k.tn + k.fp = 0 THEN CAST(0 AS DOUBLE)
        ELSE k.tn / CAST(k.tn + k.fp AS DOUBLE) END AS specificity,
    CASE WHEN k.tn + k.fp = 0 THEN CAST(0 AS DOUBLE)
        ELSE k.fp / CAST(k.tn + k.fp AS DOUBLE) END AS fpr,
    CASE WHEN k.tp + k.fn + k.fp = 0 THEN CAST(0 AS DOUBLE)
        ELSE (1 + $beta_squared) * k.tp
            / ((1 + $beta_squared) * k.tp + $beta_squared * k.fn + k.fp) END AS f_measure
FROM class_counts AS k
ORDER BY class_index
