-- Dense lookup of integer-coded attributes for scoring: one row per code, where an attribute
-- with contiguous seen values low..high owns the codes first_code .. first_code + high - low + 2
-- of each model part: first_code + (value - low) for a seen value, first_code + (high - low + 1)
-- for any value not seen in training, first_code + (high - low + 2) for NULL (contributes
-- nothing: 0.0). Parameter tables holding one model per partition (cross-validation folds,
-- column wml_part) give each partition p the codes shifted by p * $width; a value seen by
-- another partition's model only is that partition's unseen value. Every scored row finds its
-- code, so scoring joins this table with an INNER join on one integer key (DuckDB: a
-- perfect-hash join) instead of a LEFT join on text.
-- Placeholders: $table (output), $categorical, $unseen, $classes (the model's tables),
--   $layout (relation: attribute, low, high, first_code), $width (codes per partition),
--   $categorical_part, $unseen_part, $classes_part (k.wml_part, u.wml_part, c.wml_part for
--   partitioned tables, else 0), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.log_prob END) items, scoring.pivot_columns).
-- Output columns: code (BIGINT), lp_0 .. lp_{K-1} (DOUBLE natural log P(value | class i);
--   NULL when the probability is 0).
CREATE TABLE $table AS
WITH seen_values AS (
    SELECT DISTINCT k.attribute AS attribute, k.value AS value FROM $categorical AS k
),
cells AS (
    SELECT
        CAST($classes_part * $width + l.first_code AS BIGINT) AS base,
        $classes_part AS part,
        c.class_index AS class_index,
        l.attribute AS attribute,
        l.low AS low,
        l.high AS high
    FROM $classes AS c
    CROSS JOIN $layout AS l
),
slots AS (
    SELECT
        CAST(g.base + CAST(v.value AS BIGINT) - g.low AS BIGINT) AS code,
        g.class_index AS class_index,
        CASE WHEN k.value IS NULL THEN u.log_prob ELSE k.log_prob END AS log_prob
    FROM cells AS g
    JOIN seen_values AS v ON v.attribute = g.attribute
    LEFT JOIN $categorical AS k
        ON k.attribute = g.attribute AND k.value = v.value AND k.class_index = g.class_index
        AND $categorical_part = g.part
    LEFT JOIN $unseen AS u
        ON u.attribute = g.attribute AND u.class_index = g.class_index AND $unseen_part = g.part
    UNION ALL
    SELECT
        CAST(g.base + g.high - g.low + 1 AS BIGINT) AS code,
        g.class_index AS class_index,
        u.log_prob AS log_prob
    FROM cells AS g
    LEFT JOIN $unseen AS u
        ON u.attribute = g.attribute AND u.class_index = g.class_index AND $unseen_part = g.part
    UNION ALL
    SELECT
        CAST(g.base + g.high - g.low + 2 AS BIGINT) AS code,
        g.class_index AS class_index,
        CAST(0 AS DOUBLE) AS log_prob
    FROM cells AS g
)
SELECT p.code AS code, $class_columns
FROM slots AS p
GROUP BY p.code
