-- TAN conditional probability tables from stored pair counts (no scan of the source), sparse:
-- P(value | class, parent value) = (N(x,pa,c) + alpha) / (N(pa,c) + alpha * |X|) (Weka
-- SimpleEstimator, sql/tan_log_prob.sql) for every (value, parent value) pair counted in
-- training (in any class), in every class (N(x,pa,c) = 0 in the classes without it). A seen
-- value never counted with a parent value takes that parent value's row of the cpt_parent table
-- (create_tan_cpt_parent.sql), which also holds N(pa,c) and |X|; scoring and the lookup table
-- read both (tan.py, create_tan_lookup.sql). N counts rows where both the attribute and its
-- parent are non-NULL. A zero probability is stored as log_prob NULL ("impossible"); a (parent
-- value, class) with no row and alpha = 0 gets the uniform 1/|X|. Each model
-- partition (column wml_part) with its own tree.
-- Written by TAN.learn_tables (tan.py).
-- Placeholders: $table (output), $edge_counts (relation from select_tan_edge_counts.sql),
--   $cpt_parent (the model's cpt_parent table), $log_prob
--   (sql/tan_log_prob.sql bound to n = f.n, n_parent = f.n_parent, n_values = f.n_values and
--   the model's alpha), $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part (INTEGER), attribute (VARCHAR), parent (VARCHAR), value (VARCHAR),
--   parent_value (VARCHAR), class_index (INTEGER), n ($count_type), n_parent ($count_type), n_values
--   (BIGINT, |X|), log_prob (DOUBLE natural log, NULL when the probability is 0).
-- Rendered by: warehouse_ml/models/learners/bayes/tan.py.
CREATE TABLE $table AS
WITH counted AS (
    SELECT o.wml_part, o.attribute, o.value, o.parent_value, o.class_index, o.n
    FROM $edge_counts AS o
),
pairs AS (
    SELECT DISTINCT k.wml_part, k.attribute, k.value, k.parent_value FROM counted AS k
),
parents AS (
    SELECT
        q.wml_part AS wml_part,
        q.attribute AS attribute,
        q.parent AS parent,
        q.parent_value AS parent_value,
        q.class_index AS class_index,
        q.n_parent AS n_parent,
        q.n_values AS n_values
    FROM $cpt_parent AS q
),
filled AS (
    SELECT
        q.wml_part,
        q.attribute,
        q.parent,
        p.value,
        q.parent_value,
        q.class_index,
        CAST(COALESCE(k.n, 0) AS $count_type) AS n,
        q.n_parent,
        q.n_values
    FROM pairs AS p
    JOIN parents AS q
        ON q.wml_part = p.wml_part AND q.attribute = p.attribute
        AND q.parent_value = p.parent_value
    LEFT JOIN counted AS k
        ON k.wml_part = p.wml_part AND k.attribute = p.attribute AND k.value = p.value
        AND k.parent_value = p.parent_value AND k.class_index = q.class_index
)
SELECT
    f.wml_part AS wml_part,
    f.attribute AS attribute,
    f.parent AS parent,
    f.value AS value,
    f.parent_value AS parent_value,
    f.class_index AS class_index,
    f.n AS n,
    f.n_parent AS n_parent,
    f.n_values AS n_values,
    $log_prob AS log_prob
FROM filled AS f
