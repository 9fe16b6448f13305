-- Dense lookup of integer-coded attributes for scoring: one row per code, where an attribute
-- with contiguous seen values low..high owns the codes first_code .. first_code + width - 1:
-- first_code + (value - low) for a seen value, first_code + (high - low + 1) for any value not
-- seen in training, first_code + (high - low + 2) for NULL (contributes nothing: 0.0). Every
-- scored row finds its code, so scoring joins this table with an INNER join on one integer key
-- (DuckDB: a perfect-hash join) instead of a LEFT join on text.
-- Placeholders: $table (output), $categorical, $unseen, $classes (the model's tables),
--   $layout (relation: attribute, low, high, first_code), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.log_prob END) items, scoring.pivot_columns).
-- Output columns: code (BIGINT), lp_0 .. lp_{K-1} (DOUBLE natural log P(value | class i);
--   NULL when the probability is 0).
CREATE TABLE $table AS
WITH slots AS (
    SELECT
        CAST(l.first_code + CAST(k.value AS BIGINT) - l.low AS BIGINT) AS code,
        k.class_index AS class_index,
        k.log_prob AS log_prob
    FROM $categorical AS k
    JOIN $layout AS l ON l.attribute = k.attribute
    UNION ALL
    SELECT
        CAST(l.first_code + l.high - l.low + 1 AS BIGINT) AS code,
        u.class_index AS class_index,
        u.log_prob AS log_prob
    FROM $unseen AS u
    JOIN $layout AS l ON l.attribute = u.attribute
    UNION ALL
    SELECT
        CAST(l.first_code + l.high - l.low + 2 AS BIGINT) AS code,
        c.class_index AS class_index,
        CAST(0 AS DOUBLE) AS log_prob
    FROM $layout AS l
    CROSS JOIN $classes AS c
)
SELECT p.code AS code, $class_columns
FROM slots AS p
GROUP BY p.code
