-- TAN conditional probability tables from stored pair counts (no scan of the source):
-- P(value | class, parent value) = (N(x,pa,c) + alpha) / (N(pa,c) + alpha * |X|) (Weka
-- SimpleEstimator), for every training value x of the attribute (from the categorical table),
-- every parent value seen with a non-NULL attribute value, and every class. N counts rows where
-- both the attribute and its parent are non-NULL. A zero probability is stored as log_prob NULL
-- ("impossible"); a (parent value, class) with no row and alpha = 0 gets the uniform 1/|X|.
-- One model, or one model per partition (cross-validation folds, each with its own tree:
-- tables and edges with a wml_part column).
-- Placeholders: $table (output), $pair_counts (a pair-count table), $edges (VALUES e:
--   attribute, parent [, wml_part]), $categorical (a categorical table: attribute, value,
--   class_index), $classes (the class table), $pair_part, $edges_part, $categorical_part,
--   $classes_part (k.wml_part, e.wml_part, g.wml_part, c.wml_part, or 0 for one model),
--   $partition_columns (empty, or [f.wml_part AS wml_part]), $alpha (number >= 0).
-- Output columns: [wml_part (INTEGER)], attribute (VARCHAR), parent (VARCHAR), value (VARCHAR), parent_value
--   (VARCHAR), class_index (INTEGER), n (BIGINT), n_parent (BIGINT), n_values (BIGINT, |X|),
--   log_prob (DOUBLE natural log, NULL when the probability is 0).
CREATE TABLE $table AS
WITH oriented AS (
    SELECT
        $pair_part AS wml_part,
        e.attribute AS attribute,
        e.parent AS parent,
        CASE WHEN k.attribute_i = e.attribute THEN k.value_i ELSE k.value_j END AS value,
        CASE WHEN k.attribute_i = e.attribute THEN k.value_j ELSE k.value_i END AS parent_value,
        k.class_index AS class_index,
        k.n AS n
    FROM $pair_counts AS k
    JOIN $edges
        ON $edges_part = $pair_part
        AND (
            (k.attribute_i = e.attribute AND k.attribute_j = e.parent)
            OR (k.attribute_i = e.parent AND k.attribute_j = e.attribute)
        )
),
child_values AS (
    SELECT DISTINCT $categorical_part AS wml_part, g.attribute, g.value FROM $categorical AS g
),
cardinality AS (
    SELECT v.wml_part, v.attribute, COUNT(*) AS n_values
    FROM child_values AS v
    GROUP BY v.wml_part, v.attribute
),
parent_values AS (
    SELECT DISTINCT o.wml_part, o.attribute, o.parent, o.parent_value FROM oriented AS o
),
filled AS (
    SELECT
        p.wml_part,
        p.attribute,
        p.parent,
        v.value,
        p.parent_value,
        c.class_index,
        COALESCE(o.n, 0) AS n
    FROM parent_values AS p
    JOIN child_values AS v ON v.wml_part = p.wml_part AND v.attribute = p.attribute
    JOIN $classes AS c ON $classes_part = p.wml_part
    LEFT JOIN oriented AS o
        ON o.wml_part = p.wml_part AND o.attribute = p.attribute AND o.value = v.value
        AND o.parent_value = p.parent_value AND o.class_index = c.class_index
),
totals AS (
    SELECT f.wml_part, f.attribute, f.parent_value, f.class_index, SUM(f.n) AS n_parent
    FROM filled AS f
    GROUP BY f.wml_part, f.attribute, f.parent_value, f.class_index
)
SELECT
    $partition_columns,
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
    ON t.wml_part = f.wml_part AND t.attribute = f.attribute
    AND t.parent_value = f.parent_value AND t.class_index = f.class_index
JOIN cardinality AS r ON r.wml_part = f.wml_part AND r.attribute = f.attribute
