-- Expression: the sum of one class's terms over a scored row's attributes (aggregated per row),
-- NULL when one of them is NULL: a zero-probability parameter makes the class impossible for
-- the row, as a NULL term does in a sum of terms.
-- Placeholders: $term (the class's term column, DOUBLE natural log).
-- Rendered by: warehouse_ml/models/scoring/long_terms.py.
SELECT CASE WHEN COUNT($term) = COUNT(*) THEN SUM($term) END AS summed
