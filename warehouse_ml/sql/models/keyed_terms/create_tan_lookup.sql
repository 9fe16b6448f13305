-- Dense lookup of a TAN model's integer-coded attributes for scoring: one row per code, holding
-- what TAN scoring gives the attribute (tan_terms.tan_logical): 0.0 for NULL, log P(value |
-- class, parent value) where the sparse cpt has that (value, parent value) row, else for a
-- seen value (a categorical row) the cpt_parent row of the parent value (a value never counted
-- with it), else the class-only term (the categorical row, else the unseen row). In model part
-- p (the tables' wml_part: 0 for a fitted model, the fold for cross-validation's), an attribute with contiguous seen values low..high and parent q
-- (seen values parent_low..parent_high, n_q of them; none at the root, n_q = 0) owns the codes
-- p * $width + first_code + child_slot * stride + parent_slot: child_slot = value - low for a
-- seen value, high - low + 1 for any other value, high - low + 2 for NULL; parent_slot = parent
-- value - parent_low for a seen parent value, n_q for NULL or any other parent value (0 at the
-- root); stride > every part's n_q. Seen values are those of any part: a value seen by another
-- part's model only is unseen here (no cpt, categorical row), as in that part's own model.
-- Placeholders: $table (output), $categorical, $unseen, $cpt, $cpt_parent, $classes (the
--   model's tables),
--   $layout (relation: wml_part, attribute, parent (NULL at the root), low, high, parent_low,
--   parent_high (NULL at the root), first_code, stride; one row per part and placed attribute),
--   $width (codes per part), --   tables, else 0),
--   $class_columns (list of aliased MAX(CASE WHEN p.class_index = i THEN p.log_prob END)
--   items, scoring.pivot_columns).
-- Output columns: code (BIGINT), lp_0 .. lp_{K-1} (DOUBLE natural log; NULL when the
--   probability is 0).
-- Rendered by: warehouse_ml/models/keyed_terms/lookup.py.
CREATE TABLE $table AS
WITH placed AS (
    SELECT
        CAST(l.wml_part AS INTEGER) AS part,
        CAST(l.attribute AS VARCHAR) AS attribute,
        CAST(l.parent AS VARCHAR) AS parent,
        CAST(l.low AS BIGINT) AS low,
        CAST(l.high AS BIGINT) AS high,
        CAST(l.parent_low AS BIGINT) AS parent_low,
        CAST(l.parent_high AS BIGINT) AS parent_high,
        CAST(l.first_code AS BIGINT) AS first_code,
        CAST(l.stride AS BIGINT) AS stride
    FROM $layout AS l
),
named AS (
    SELECT g.attribute AS attribute FROM placed AS g
    UNION
    SELECT g.parent AS attribute FROM placed AS g WHERE g.parent IS NOT NULL
),
seen_values AS (
    SELECT DISTINCT k.attribute AS attribute, k.value AS value, CAST(k.value AS BIGINT) AS number
    FROM $categorical AS k
    JOIN named AS a ON a.attribute = k.attribute
),
child_slots AS (
    SELECT g.part AS part, g.attribute AS attribute, v.number - g.low AS slot, v.value AS value
    FROM placed AS g
    JOIN seen_values AS v ON v.attribute = g.attribute
    UNION ALL
    SELECT g.part AS part, g.attribute AS attribute, g.high - g.low + 1 AS slot,
        CAST(NULL AS VARCHAR) AS value
    FROM placed AS g
    UNION ALL
    SELECT g.part AS part, g.attribute AS attribute, g.high - g.low + 2 AS slot,
        CAST(NULL AS VARCHAR) AS value
    FROM placed AS g
),
parent_slots AS (
    SELECT g.part AS part, g.attribute AS attribute, v.number - g.parent_low AS slot,
        v.value AS parent_value
    FROM placed AS g
    JOIN seen_values AS v ON v.attribute = g.parent
    UNION ALL
    SELECT g.part AS part, g.attribute AS attribute,
        COALESCE(g.parent_high - g.parent_low + 1, 0) AS slot, CAST(NULL AS VARCHAR) AS parent_value
    FROM placed AS g
),
slots AS (
    SELECT
        CAST(g.part * $width + g.first_code + x.slot * g.stride + y.slot AS BIGINT) AS code,
        c.class_index AS class_index,
        CASE
            WHEN x.slot = g.high - g.low + 2 THEN CAST(0 AS DOUBLE)
            WHEN t.value IS NOT NULL THEN t.log_prob
            WHEN k.value IS NOT NULL AND q.parent_value IS NOT NULL THEN q.log_prob
            WHEN k.value IS NOT NULL THEN k.log_prob
            ELSE u.log_prob
        END AS log_prob
    FROM placed AS g
    JOIN child_slots AS x ON x.part = g.part AND x.attribute = g.attribute
    JOIN parent_slots AS y ON y.part = g.part AND y.attribute = g.attribute
    JOIN $classes AS c ON c.wml_part = g.part
    LEFT JOIN $cpt AS t
        ON t.wml_part = g.part AND t.attribute = g.attribute AND t.value = x.value
        AND t.parent_value = y.parent_value AND t.class_index = c.class_index
    LEFT JOIN $cpt_parent AS q
        ON q.wml_part = g.part AND q.attribute = g.attribute
        AND q.parent_value = y.parent_value AND q.class_index = c.class_index
    LEFT JOIN $categorical AS k
        ON k.wml_part = g.part AND k.attribute = g.attribute AND k.value = x.value
        AND k.class_index = c.class_index
    LEFT JOIN $unseen AS u
        ON u.wml_part = g.part AND u.attribute = g.attribute AND u.class_index = c.class_index
)
SELECT p.code AS code, $class_columns
FROM slots AS p
GROUP BY p.code
