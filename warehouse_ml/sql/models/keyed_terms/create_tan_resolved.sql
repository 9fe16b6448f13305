-- A fitted TAN model's fallback chains resolved per (parent value, value), for scoring a text
-- attribute by one join (models/keyed_terms/resolved.py): one row per resolved attribute, seen
-- value of it and parent key, holding what TAN scoring gives the attribute
-- (tan_terms.tan_logical): the cpt row of an observed (value, parent value) pair, else the
-- cpt_parent row of the parent value (a value never counted with it), else the class-only
-- categorical row. The parent keys are every seen value of the parent (parent_seen = 1) and
-- one row for a NULL or unseen parent value (parent_seen = 0, parent_value ''), the root's only
-- key. A value unseen in training has no row (its term is the unseen row's, a literal of the
-- query), so the table is dense over the seen values: (parent's values + 1) * values rows.
-- Placeholders: $table (output), $layout (relation: attribute, parent (NULL at the root); one
--   row per resolved attribute), $categorical, $cpt, $cpt_parent (the model's tables, one
--   model partition), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.log_prob END) items, scoring.pivot_columns).
-- Output columns: attribute (VARCHAR), parent_seen (INTEGER), parent_value (VARCHAR), value
--   (VARCHAR), lp_0 .. lp_{K-1} (DOUBLE natural log; NULL when the probability is 0).
-- Rendered by: warehouse_ml/models/keyed_terms/resolved.py.
CREATE TABLE $table AS
WITH resolved AS (
    SELECT CAST(l.attribute AS VARCHAR) AS attribute, CAST(l.parent AS VARCHAR) AS parent
    FROM $layout AS l
),
seen_values AS (
    SELECT DISTINCT k.attribute AS attribute, k.value AS value FROM $categorical AS k
),
parent_keys AS (
    SELECT g.attribute AS attribute, CAST(1 AS INTEGER) AS parent_seen, v.value AS parent_value
    FROM resolved AS g
    JOIN seen_values AS v ON v.attribute = g.parent
    UNION ALL
    SELECT g.attribute AS attribute, CAST(0 AS INTEGER) AS parent_seen,
        CAST('' AS VARCHAR) AS parent_value
    FROM resolved AS g
),
cells AS (
    SELECT
        y.attribute AS attribute,
        y.parent_seen AS parent_seen,
        y.parent_value AS parent_value,
        k.value AS value,
        k.class_index AS class_index,
        CASE
            WHEN t.value IS NOT NULL THEN t.log_prob
            WHEN q.parent_value IS NOT NULL THEN q.log_prob
            ELSE k.log_prob
        END AS log_prob
    FROM parent_keys AS y
    JOIN $categorical AS k ON k.attribute = y.attribute
    LEFT JOIN $cpt AS t
        ON y.parent_seen = 1 AND t.attribute = y.attribute AND t.value = k.value
        AND t.parent_value = y.parent_value AND t.class_index = k.class_index
    LEFT JOIN $cpt_parent AS q
        ON y.parent_seen = 1 AND q.attribute = y.attribute
        AND q.parent_value = y.parent_value AND q.class_index = k.class_index
)
SELECT p.attribute AS attribute, p.parent_seen AS parent_seen, p.parent_value AS parent_value,
    p.value AS value, $class_columns
FROM cells AS p
GROUP BY p.attribute, p.parent_seen, p.parent_value, p.value
