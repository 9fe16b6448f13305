-- The rows of a fitted model's parameter table $table whose attribute has at most $limit rows
-- of class 0 in the table $counted (e.g. at most $limit seen values, or observed pairs), in
-- a fixed order: the parameters a query writes as literals.
-- Placeholders: $table, $counted (tables), $limit (integer).
-- Output columns: those of $table.
-- Rendered by: warehouse_ml/models/keyed_terms/literal_terms.py.
SELECT *
FROM $table AS t
WHERE t.attribute IN (
    SELECT c.attribute
    FROM $counted AS c
    WHERE c.class_index = 0
    GROUP BY c.attribute
    HAVING COUNT(*) <= $limit
)
ORDER BY t.attribute, t.class_index
