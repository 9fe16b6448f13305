-- The slots of integer-coded attributes for the dense lookup table (lookup.py): an attribute
-- with contiguous seen values low..high has the slots 0 .. high - low + 2 in each model part:
-- value - low for a seen value, high - low + 1 for any value not seen in training, high - low + 2
-- for NULL (contributes nothing: 0.0). Each model partition (column wml_part: 0 for a fitted
-- model, cross-validation's folds) has its own slots; a value seen by
-- another partition's model only is that partition's unseen value.
-- Placeholders: $categorical, $unseen, $classes (the model's tables), $layout (relation:
--   attribute, low, high), $class_columns (list of aliased
--   MAX(CASE WHEN p.class_index = i THEN p.log_prob END) items, scoring.pivot_columns).
-- Output columns: wml_part (INTEGER), attribute (VARCHAR), slot (BIGINT),
--   lp_0 .. lp_{K-1} (DOUBLE natural log P(value | class i); NULL when the probability is 0).
-- Rendered by: warehouse_ml/models/keyed_terms/lookup.py.
WITH seen_values AS (
    SELECT DISTINCT k.attribute AS attribute, k.value AS value FROM $categorical AS k
),
cells AS (
    SELECT
        c.wml_part AS part,
        c.class_index AS class_index,
        l.attribute AS attribute,
        l.low AS low,
        l.high AS high
    FROM $classes AS c
    CROSS JOIN $layout AS l
),
slots AS (
    SELECT
        g.part AS part,
        g.attribute AS attribute,
        CAST(CAST(v.value AS BIGINT) - g.low AS BIGINT) AS slot,
        g.class_index AS class_index,
        CASE WHEN k.value IS NULL THEN u.log_prob ELSE k.log_prob END AS log_prob
    FROM cells AS g
    JOIN seen_values AS v ON v.attribute = g.attribute
    LEFT JOIN $categorical AS k
        ON k.attribute = g.attribute AND k.value = v.value AND k.class_index = g.class_index
        AND k.wml_part = g.part
    LEFT JOIN $unseen AS u
        ON u.attribute = g.attribute AND u.class_index = g.class_index AND u.wml_part = g.part
    UNION ALL
    SELECT
        g.part AS part,
        g.attribute AS attribute,
        CAST(g.high - g.low + e.slot_offset AS BIGINT) AS slot,
        g.class_index AS class_index,
        CASE WHEN e.is_null THEN CAST(0 AS DOUBLE) ELSE u.log_prob END AS log_prob
    FROM cells AS g
    CROSS JOIN (VALUES (1, FALSE), (2, TRUE)) AS e(slot_offset, is_null)
    LEFT JOIN $unseen AS u
        ON u.attribute = g.attribute AND u.class_index = g.class_index AND u.wml_part = g.part
)
SELECT
    CAST(p.part AS INTEGER) AS wml_part,
    p.attribute AS attribute,
    p.slot AS slot,
    $class_columns
FROM slots AS p
GROUP BY p.part, p.attribute, p.slot
