-- Mutual information MI(A; C) in bits of each attribute with the class, from (attribute, value,
-- class) counts (docs/ARCHITECTURE.md, "Mutual information"). Probabilities are relative
-- frequencies over the attribute's counted rows (value and class both non-NULL):
--   MI = sum n/N * log2(n * N / (N_v * N_c)) over the cells with n > 0,
-- N the attribute's counted rows, N_v those with value v, N_c those of class c. Logarithms are
-- LN(x) / LN(2). Each cell's term is summed as DECIMAL(38, 30) (an exact sum, the same on
-- every engine and thread count, as in select_pair_information.sql).
-- Each partition (column wml_part, e.g. a training fold) from its own counts.
-- Placeholders: $counts (wml_part, attribute, value, class_label, n).
-- Output columns: wml_part, attribute (VARCHAR), n (BIGINT rows counted), mi (DOUBLE bits).
-- Rendered by: warehouse_ml/stats/information.py.
WITH cells AS (
    SELECT k.wml_part, k.attribute, k.value, k.class_label, k.n
    FROM $counts AS k
    WHERE k.n > 0
),
attribute_total AS (
    SELECT k.wml_part, k.attribute, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute
),
value_total AS (
    SELECT k.wml_part, k.attribute, k.value, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute, k.value
),
class_total AS (
    SELECT k.wml_part, k.attribute, k.class_label, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute, k.class_label
)
SELECT
    t.wml_part AS wml_part,
    t.attribute AS attribute,
    CAST(t.n AS BIGINT) AS n,
    CAST(SUM(CAST(
        CAST(k.n AS DOUBLE) / t.n * (
            LN(CAST(k.n AS DOUBLE)) + LN(CAST(t.n AS DOUBLE))
            - LN(CAST(v.n AS DOUBLE)) - LN(CAST(c.n AS DOUBLE))
        ) AS DECIMAL(38, 30)
    )) AS DOUBLE) / LN(2) AS mi
FROM cells AS k
JOIN attribute_total AS t
    ON t.wml_part = k.wml_part AND t.attribute = k.attribute
JOIN value_total AS v
    ON v.wml_part = k.wml_part AND v.attribute = k.attribute AND v.value = k.value
JOIN class_total AS c
    ON c.wml_part = k.wml_part AND c.attribute = k.attribute AND c.class_label = k.class_label
GROUP BY t.wml_part, t.attribute, t.n
