-- What a value never seen in training contributes, per attribute and class: the smoothed
-- zero-count probability (alpha + m/|X|) / (n_class + alpha*|X| + m), or nothing (log 0.0) when
-- that is zero (alpha = m = 0), the class has no non-NULL value of the attribute, or the
-- attribute has no non-NULL value in the model's training rows at all (|X| = 0: every value
-- it is scored with is unseen, and no value was seen to weigh it against).
-- Every model partition of the class table gets a row for every attribute and class.
-- Placeholders: $table (output), $categorical (a categorical table, with column wml_part),
--   $classes (the class table: wml_part, class_index), $attributes (VALUES of the model's
--   categorical attribute names, as (attribute)), $log_prob (unseen_log_prob.sql, shared
--   with leave-one-out scoring, bound to n_class = t.n_class, n_values = t.n_values and the
--   model's alpha and m; see naive_bayes.unseen_log_prob), $count_type (BIGINT rows, or
--   DOUBLE summed weights).
-- Output columns: wml_part (INTEGER), attribute (VARCHAR), class_index (INTEGER),
--   n_class ($count_type), n_values (BIGINT), log_prob (DOUBLE natural log).
-- Rendered by: warehouse_ml/models/learners/bayes/naive_bayes.py.
CREATE TABLE $table AS
WITH tagged AS (
    SELECT k.wml_part, k.attribute, k.class_index, k.n FROM $categorical AS k
),
counted AS (
    SELECT k.wml_part, k.attribute, k.class_index, SUM(k.n) AS n_class, COUNT(*) AS n_values
    FROM tagged AS k
    GROUP BY k.wml_part, k.attribute, k.class_index
),
totals AS (
    SELECT
        c.wml_part AS wml_part,
        a.attribute AS attribute,
        c.class_index AS class_index,
        CAST(COALESCE(k.n_class, 0) AS $count_type) AS n_class,
        CAST(COALESCE(k.n_values, 0) AS BIGINT) AS n_values
    FROM $classes AS c
    CROSS JOIN $attributes
    LEFT JOIN counted AS k
        ON k.wml_part = c.wml_part AND k.attribute = a.attribute AND k.class_index = c.class_index
)
SELECT
    t.wml_part AS wml_part,
    t.attribute AS attribute,
    t.class_index AS class_index,
    t.n_class AS n_class,
    t.n_values AS n_values,
    $log_prob AS log_prob
FROM totals AS t
