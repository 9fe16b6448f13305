-- Per parent value of each TAN attribute with a parent: what its conditional probability
-- needs besides the pair's own count, and the log-probability of a training value of the
-- attribute never counted with that parent value in that class (n = 0). One row per (attribute,
-- parent value counted with a non-NULL attribute value, class): N(pa, c) (0 for a class
-- without such rows), |X| (values of the attribute in training, from the categorical table)
-- and ln((0 + alpha) / (N(pa, c) + alpha * |X|)) (sql/tan_log_prob.sql with n = 0: the uniform
-- -ln|X| when N(pa, c) + alpha * |X| = 0, NULL "impossible" when alpha = 0 otherwise).
-- Each model partition (tables with a wml_part
-- column). Written by TAN.learn_tables (tan.py), before
-- create_tan_cpt.sql.
-- Placeholders: $table (output), $edge_counts (relation from select_tan_edge_counts.sql),
--   $categorical (a categorical table: attribute, value, class_index), $classes (the class
--   table), $log_prob (sql/tan_log_prob.sql
--   bound to n = 0, n_parent = f.n_parent, n_values = f.n_values and the model's alpha),
--   $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part (INTEGER), attribute (VARCHAR), parent (VARCHAR), parent_value
--   (VARCHAR), class_index (INTEGER), n_parent ($count_type), n_values (BIGINT, |X|), log_prob
--   (DOUBLE natural log, NULL when the probability is 0).
-- Rendered by: warehouse_ml/models/learners/bayes/tan.py.
CREATE TABLE $table AS
WITH parent_counts AS (
    SELECT o.wml_part, o.attribute, o.parent, o.parent_value, o.class_index, SUM(o.n) AS n
    FROM $edge_counts AS o
    GROUP BY o.wml_part, o.attribute, o.parent, o.parent_value, o.class_index
),
parent_values AS (
    SELECT DISTINCT p.wml_part, p.attribute, p.parent, p.parent_value FROM parent_counts AS p
),
child_values AS (
    SELECT DISTINCT g.wml_part, g.attribute, g.value FROM $categorical AS g
),
cardinality AS (
    SELECT v.wml_part, v.attribute, COUNT(*) AS n_values
    FROM child_values AS v
    GROUP BY v.wml_part, v.attribute
),
filled AS (
    SELECT
        v.wml_part,
        v.attribute,
        v.parent,
        v.parent_value,
        c.class_index,
        CAST(COALESCE(t.n, 0) AS $count_type) AS n_parent,
        CAST(r.n_values AS BIGINT) AS n_values
    FROM parent_values AS v
    JOIN $classes AS c ON c.wml_part = v.wml_part
    JOIN cardinality AS r ON r.wml_part = v.wml_part AND r.attribute = v.attribute
    LEFT JOIN parent_counts AS t
        ON t.wml_part = v.wml_part AND t.attribute = v.attribute
        AND t.parent_value = v.parent_value AND t.class_index = c.class_index
)
SELECT
    f.wml_part AS wml_part,
    f.attribute AS attribute,
    f.parent AS parent,
    f.parent_value AS parent_value,
    f.class_index AS class_index,
    f.n_parent AS n_parent,
    f.n_values AS n_values,
    $log_prob AS log_prob
FROM filled AS f
