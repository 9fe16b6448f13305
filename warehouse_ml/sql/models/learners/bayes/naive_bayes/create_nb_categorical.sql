-- Categorical parameters: every (attribute, seen value, class) with its count and smoothed
-- log-probability P(value | class) = (n + alpha + m/|X|) / (n_class + alpha*|X| + m), where
-- |X| is the number of values the attribute takes in training and n_class the rows of the
-- class where the attribute is not NULL. A zero probability is stored as log_prob NULL
-- ("impossible"); a class with no non-NULL value of the attribute gets the uniform 1/|X|.
-- Every model partition (column wml_part: 0 for a fitted model, the fold for cross-validation's
-- models) from its own counts only.
-- $counts is read once, as the CTE "counted" (referenced twice: DuckDB and PostgreSQL materialise
-- it instead of counting the source twice).
-- Placeholders: $table (output), $counts (wml_part, attribute, value, class_label, n),
--   $classes (the class table),
--   $log_prob (smoothed_log_prob.sql, the formula shared with leave-one-out scoring, bound to
--   n = f.n, n_class = t.n_class, n_values = t.n_values and the model's alpha and m; see
--   naive_bayes.categorical_log_prob), $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part (INTEGER), attribute (VARCHAR), value (VARCHAR),
--   class_index (INTEGER), n ($count_type), log_prob (DOUBLE natural log, NULL when the
--   probability is 0).
-- Rendered by: warehouse_ml/models/learners/bayes/naive_bayes.py.
CREATE TABLE $table AS
WITH counted AS (
    SELECT k.wml_part, k.attribute, k.value, k.class_label, k.n FROM $counts AS k
),
seen AS (
    SELECT DISTINCT k.wml_part, k.attribute, k.value FROM counted AS k
),
filled AS (
    SELECT s.wml_part, s.attribute, s.value, c.class_index, COALESCE(k.n, 0) AS n
    FROM seen AS s
    JOIN $classes AS c ON c.wml_part = s.wml_part
    LEFT JOIN counted AS k
        ON k.wml_part = s.wml_part AND k.attribute = s.attribute AND k.value = s.value
        AND k.class_label = c.class_label
),
totals AS (
    SELECT f.wml_part, f.attribute, f.class_index, SUM(f.n) AS n_class, COUNT(*) AS n_values
    FROM filled AS f
    GROUP BY f.wml_part, f.attribute, f.class_index
)
SELECT
    f.wml_part AS wml_part,
    f.attribute AS attribute,
    f.value AS value,
    f.class_index AS class_index,
    CAST(f.n AS $count_type) AS n,
    $log_prob AS log_prob
FROM filled AS f
JOIN totals AS t
    ON t.wml_part = f.wml_part AND t.attribute = f.attribute AND t.class_index = f.class_index
