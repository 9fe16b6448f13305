-- Conditional mutual information CMI(Ai; Aj | C) and mutual information MI(Ai; Aj), in bits,
-- of every attribute pair, from pair counts (docs/ARCHITECTURE.md, "Mutual information").
-- Probabilities are relative frequencies over the pair's rows (rows where Ai or Aj is NULL are
-- not in its counts):
--   CMI = sum n/N * log2(n * N_c / (N_ic * N_jc)),  MI = sum n_ij/N * log2(n_ij * N / (N_i * N_j)).
-- Logarithms are LN(x) / LN(2). Pairs without any counted row are absent (information 0).
-- Each cell's term (|term| < 64 nats: n/N <= 1 times a log of count ratios) is summed as
-- DECIMAL(38, 30): an exact sum, so the result does not depend on the order in which a
-- parallel engine adds the cells (a DOUBLE SUM differs in its last bits between runs and
-- thread counts, and a near tie between two CMIs could then change the tree); each term is
-- rounded to 1e-30 first, far below DOUBLE precision of the total.
-- Each model partition (column wml_part) from its own counts.
-- Placeholders: $pair_counts (attribute_i, attribute_j, value_i, value_j, class_index, n, wml_part),
--   $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: wml_part (INTEGER), attribute_i (VARCHAR), attribute_j (VARCHAR),
--   n ($count_type rows of the pair, or their weights), cmi (DOUBLE bits), mi (DOUBLE bits).
-- Rendered by: warehouse_ml/stats/pairs.py.
WITH cells AS (
    SELECT p.wml_part, p.attribute_i, p.attribute_j, p.value_i, p.value_j,
        p.class_index, p.n
    FROM $pair_counts AS p
    WHERE p.n > 0
),
pair_total AS (
    SELECT k.wml_part, k.attribute_i, k.attribute_j, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute_i, k.attribute_j
),
class_total AS (
    SELECT k.wml_part, k.attribute_i, k.attribute_j, k.class_index, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute_i, k.attribute_j, k.class_index
),
i_class AS (
    SELECT k.wml_part, k.attribute_i, k.attribute_j, k.value_i, k.class_index, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute_i, k.attribute_j, k.value_i, k.class_index
),
j_class AS (
    SELECT k.wml_part, k.attribute_i, k.attribute_j, k.value_j, k.class_index, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute_i, k.attribute_j, k.value_j, k.class_index
),
joint AS (
    SELECT k.wml_part, k.attribute_i, k.attribute_j, k.value_i, k.value_j, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute_i, k.attribute_j, k.value_i, k.value_j
),
i_only AS (
    SELECT k.wml_part, k.attribute_i, k.attribute_j, k.value_i, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute_i, k.attribute_j, k.value_i
),
j_only AS (
    SELECT k.wml_part, k.attribute_i, k.attribute_j, k.value_j, SUM(k.n) AS n
    FROM cells AS k
    GROUP BY k.wml_part, k.attribute_i, k.attribute_j, k.value_j
),
conditional AS (
    SELECT
        k.wml_part,
        k.attribute_i,
        k.attribute_j,
        CAST(SUM(CAST(
            CAST(k.n AS DOUBLE) / t.n * (
                LN(CAST(k.n AS DOUBLE)) + LN(CAST(c.n AS DOUBLE))
                - LN(CAST(ic.n AS DOUBLE)) - LN(CAST(jc.n AS DOUBLE))
            ) AS DECIMAL(38, 30)
        )) AS DOUBLE) / LN(2) AS cmi
    FROM cells AS k
    JOIN pair_total AS t
        ON t.wml_part = k.wml_part AND t.attribute_i = k.attribute_i
        AND t.attribute_j = k.attribute_j
    JOIN class_total AS c
        ON c.wml_part = k.wml_part AND c.attribute_i = k.attribute_i
        AND c.attribute_j = k.attribute_j AND c.class_index = k.class_index
    JOIN i_class AS ic
        ON ic.wml_part = k.wml_part AND ic.attribute_i = k.attribute_i
        AND ic.attribute_j = k.attribute_j AND ic.value_i = k.value_i
        AND ic.class_index = k.class_index
    JOIN j_class AS jc
        ON jc.wml_part = k.wml_part AND jc.attribute_i = k.attribute_i
        AND jc.attribute_j = k.attribute_j AND jc.value_j = k.value_j
        AND jc.class_index = k.class_index
    GROUP BY k.wml_part, k.attribute_i, k.attribute_j
),
mutual AS (
    SELECT
        k.wml_part,
        k.attribute_i,
        k.attribute_j,
        CAST(SUM(CAST(
            CAST(k.n AS DOUBLE) / t.n * (
                LN(CAST(k.n AS DOUBLE)) + LN(CAST(t.n AS DOUBLE))
                - LN(CAST(io.n AS DOUBLE)) - LN(CAST(jo.n AS DOUBLE))
            ) AS DECIMAL(38, 30)
        )) AS DOUBLE) / LN(2) AS mi
    FROM joint AS k
    JOIN pair_total AS t
        ON t.wml_part = k.wml_part AND t.attribute_i = k.attribute_i
        AND t.attribute_j = k.attribute_j
    JOIN i_only AS io
        ON io.wml_part = k.wml_part AND io.attribute_i = k.attribute_i
        AND io.attribute_j = k.attribute_j AND io.value_i = k.value_i
    JOIN j_only AS jo
        ON jo.wml_part = k.wml_part AND jo.attribute_i = k.attribute_i
        AND jo.attribute_j = k.attribute_j AND jo.value_j = k.value_j
    GROUP BY k.wml_part, k.attribute_i, k.attribute_j
)
SELECT
    t.wml_part AS wml_part,
    t.attribute_i AS attribute_i,
    t.attribute_j AS attribute_j,
    CAST(t.n AS $count_type) AS n,
    c.cmi AS cmi,
    m.mi AS mi
FROM pair_total AS t
JOIN conditional AS c
    ON c.wml_part = t.wml_part AND c.attribute_i = t.attribute_i
    AND c.attribute_j = t.attribute_j
JOIN mutual AS m
    ON m.wml_part = t.wml_part AND m.attribute_i = t.attribute_i
    AND m.attribute_j = t.attribute_j
