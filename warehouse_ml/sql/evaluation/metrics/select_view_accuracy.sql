-- Share of rows whose prediction equals the truth (rows with a NULL truth left out).
-- Placeholders: $view (relation), $truth, $prediction (column references).
-- Output columns: n (BIGINT rows compared), accuracy (DOUBLE in [0, 1]).
-- Rendered by: warehouse_ml/cli/demo.py, warehouse_ml/models/scoring/prediction.py.
SELECT
    COUNT(*) AS n,
    AVG(CASE WHEN $prediction = $truth THEN 1.0 ELSE 0.0 END) AS accuracy
FROM $view AS v
WHERE $truth IS NOT NULL
