-- TAN conditional probability tables from stored pair counts (no scan of the source):
-- P(value | class, parent value) = (N(x,pa,c) + alpha) / (N(pa,c) + alpha * |X|) (Weka
-- SimpleEstimator), for every training value x of the attribute (from the categorical table),
-- every parent value seen with a non-NULL attribute value, and every class. N counts rows where
-- both the attribute and its parent are non-NULL. A zero probability is stored as log_prob NULL
-- ("impossible"); a (parent value, class) with no row and alpha = 0 gets the uniform 1/|X|.
-- Placeholders: $table (output), $pair_counts (a model's pair-count table), $edges (VALUES:
--   attribute, parent), $categorical (a model's categorical table: attribute, value,
--   class_index), $classes (a model's class table), $alpha (number >= 0).
-- Output columns: attribute (VARCHAR), parent (VARCHAR), value (VARCHAR), parent_value
--   (VARCHAR), class_index (INTEGER), n (BIGINT), n_parent (BIGINT), n_values (BIGINT, |X|),
--   log_prob (DOUBLE natural log, NULL when the probability is 0).
CREATE TABLE $table AS
WITH oriented AS (
    SELECT
        e.attribute AS attribute,
        e.parent AS parent,
        CASE WHEN k.attribute_i = e.attribute THEN k.value_i ELSE k.value_j END AS value,
        CASE WHEN k.attribute_i = e.attribute THEN k.value_j ELSE k.value_i END AS parent_value,
        k.class_index AS class_index,
        k.n AS n
    FROM $pair_counts AS k
    JOIN $edges AS e
        ON (k.attribute_i = e.attribute AND k.attribute_j = e.parent)
        OR (k.attribute_i = e.parent AND k.attribute_j = e.attribute)
),
child_values AS (
    SELECT DISTINCT g.attribute, g.value FROM $categorical AS g
),
cardinality AS (
    SELECT v.attribute, COUNT(*) AS n_values FROM child_values AS v GROUP BY v.attribute
),
parent_values AS (
    SELECT DISTINCT o.attribute, o.parent, o.parent_value FROM oriented AS o
),
filled AS (
    SELECT
        p.attribute,
        p.parent,
        v.value,
        p.parent_value,
        c.class_index,
        COALESCE(o.n, 0) AS n
    FROM parent_values AS p
    JOIN child_values AS v ON v.attribute = p.attribute
    CROSS JOIN $classes AS c
    LEFT JOIN oriented AS o
        ON o.attribute = p.attribute AND o.value = v.value
        AND o.parent_value = p.parent_value AND o.class_index = c.class_index
),
totals AS (
    SELECT f.attribute, f.parent_value, f.class_index, SUM(f.n) AS n_parent
    FROM filled AS f
    GROUP BY f.attribute, f.parent_value, f.class_index
)
SELECT
    f.attribute AS attribute,
    f.parent AS parent,
    f.value AS value,
    f.parent_value AS parent_value,
    f.class_index AS class_index,
    CAST(f.n AS BIGINT) AS n,
    CAST(t.n_parent AS BIGINT) AS n_parent,
    CAST(r.n_values AS BIGINT) AS n_values,
    CASE
        WHEN t.n_parent + $alpha * r.n_values = 0 THEN -LN(CAST(r.n_values AS DOUBLE))
        WHEN f.n + $alpha = 0 THEN NULL
        ELSE LN(CAST(f.n AS DOUBLE) + $alpha)
            - LN(CAST(t.n_parent AS DOUBLE) + $alpha * r.n_values)
    END AS log_prob
FROM filled AS f
JOIN totals AS t
    ON t.attribute = f.attribute AND t.parent_value = f.parent_value
    AND t.class_index = f.class_index
JOIN cardinality AS r ON r.attribute = f.attribute
