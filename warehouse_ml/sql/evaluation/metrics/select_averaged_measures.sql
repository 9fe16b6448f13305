-- Macro (unweighted mean over the classes) and weighted (by support) averages of the
-- per-class measures.
-- Placeholders: $measures (relation from select_class_measures.sql).
-- Output columns: average ('macro' or 'weighted'), "precision", recall, specificity, fpr,
--   f_measure (DOUBLE).
-- Rendered by: warehouse_ml/evaluation/metrics/confusion.py.
WITH m AS (
    SELECT x.* FROM $measures AS x
)
SELECT
    'macro' AS average,
    AVG(m."precision") AS "precision",
    AVG(m.recall) AS recall,
    AVG(m.specificity) AS specificity,
    AVG(m.fpr) AS fpr,
    AVG(m.f_measure) AS f_measure
FROM m
UNION ALL
SELECT
    'weighted' AS average,
    SUM(m.support * m."precision") / CAST(NULLIF(SUM(m.support), 0) AS DOUBLE) AS "precision",
    SUM(m.support * m.recall) / CAST(NULLIF(SUM(m.support), 0) AS DOUBLE) AS recall,
    SUM(m.support * m.specificity) / CAST(NULLIF(SUM(m.support), 0) AS DOUBLE) AS specificity,
    SUM(m.support * m.fpr) / CAST(NULLIF(SUM(m.support), 0) AS DOUBLE) AS fpr,
    SUM(m.support * m.f_measure) / CAST(NULLIF(SUM(m.support), 0) AS DOUBLE) AS f_measure
FROM m
