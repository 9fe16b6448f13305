-- Expression: the sum of one class's terms over a scored row's attributes (aggregated per row),
-- NULL when one of them is NULL: a zero-probability parameter makes the class impossible for
-- the row, as a NULL term does in a sum of terms.
-- Placeholders: $term (the class's term column, DOUBLE natural log).
-- Rendered by: warehouse_ml/models/keyed_terms/long_terms.py.
-- The terms are summed exactly as DECIMAL(38, 18) (each DOUBLE term to 1e-18), then read as DOUBLE:
-- a DOUBLE sum per group depends on the order the engine adds the rows in, which varies with its
-- threads; the exact sum is the same bits on every run.
SELECT CASE WHEN COUNT($term) = COUNT(*) THEN CAST(SUM(CAST($term AS DECIMAL(38, 18))) AS DOUBLE) END AS summed
