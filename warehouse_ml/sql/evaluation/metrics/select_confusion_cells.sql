-- Confusion matrix: one row per (true class, predicted class), zero cells included. Rows with a
-- NULL prediction are left out.
-- Placeholders: $predictions (relation from select_prepared_predictions.sql), $true_classes
--   (VALUES t(class_index, class_label)), $predicted_classes (the same VALUES as q(...)),
--   $count_type (BIGINT rows, or DOUBLE summed weights of a weighted measure).
-- Output columns: true_index (INTEGER), true_class (label), predicted_index (INTEGER),
--   predicted_class (label), n ($count_type rows or their weights), fraction (DOUBLE, of all rows),
--   row_fraction (DOUBLE, of the rows of the true class; NULL when it has none).
-- Rendered by: warehouse_ml/evaluation/metrics/confusion.py.
WITH counts AS (
    SELECT
        p.wml_truth AS true_index,
        p.wml_predicted AS predicted_index,
        CAST(SUM(p.wml_weight) AS $count_type) AS n
    FROM $predictions AS p
    WHERE p.wml_predicted IS NOT NULL
    GROUP BY p.wml_truth, p.wml_predicted
),
totals AS (
    SELECT SUM(k.n) AS n_total FROM counts AS k
),
grid AS (
    SELECT
        t.class_index AS true_index,
        t.class_label AS true_class,
        q.class_index AS predicted_index,
        q.class_label AS predicted_class,
        CAST(COALESCE(k.n, 0) AS $count_type) AS n,
        s.n_total AS n_total
    FROM $true_classes
    CROSS JOIN $predicted_classes
    CROSS JOIN totals AS s
    LEFT JOIN counts AS k ON k.true_index = t.class_index AND k.predicted_index = q.class_index
)
SELECT
    CAST(g.true_index AS INTEGER) AS true_index,
    g.true_class AS true_class,
    CAST(g.predicted_index AS INTEGER) AS predicted_index,
    g.predicted_class AS predicted_class,
    g.n AS n,
    g.n / CAST(NULLIF(g.n_total, 0) AS DOUBLE) AS fraction,
    g.n / CAST(NULLIF(SUM(g.n) OVER (PARTITION BY g.true_index), 0) AS DOUBLE) AS row_fraction
FROM grid AS g
ORDER BY true_index, predicted_index
