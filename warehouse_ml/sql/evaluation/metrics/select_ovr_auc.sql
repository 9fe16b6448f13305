-- One-vs-rest AUC of a multiclass model: macro (unweighted mean over classes) and weighted
-- (by each class's positives, its prevalence).
-- Placeholders: $aucs (relation from select_auc.sql).
-- Output columns: macro_auc (DOUBLE), weighted_auc (DOUBLE), n_classes (BIGINT).
-- Rendered by: warehouse_ml/evaluation/metrics/ranking.py.
WITH a AS (
    SELECT x.* FROM $aucs AS x
)
SELECT
    AVG(a.auc) AS macro_auc,
    SUM(a.positives * a.auc) / CAST(NULLIF(SUM(a.positives), 0) AS DOUBLE) AS weighted_auc,
    COUNT(*) AS n_classes
FROM a
