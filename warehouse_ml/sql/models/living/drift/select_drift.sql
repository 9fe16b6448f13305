-- Drift of a source from a model's training counts (warehouse_ml/models/living/drift.py, and
-- docs/ARCHITECTURE.md, "Drift"): per monitored distribution (item), the training and source
-- counts are joined cell by cell (a cell seen on one side only counts 0 on the other), then
--   psi         = sum (q_o - q_e) ln(q_o / q_e), q = (n + 0.5) / (N + 0.5 B)
--   js_distance = sqrt(sum (p_e log2(2 p_e / (p_e + p_o)) + p_o log2(2 p_o / (p_e + p_o))) / 2)
--   chi_square  = sum (n_e N_o - n_o N_e)^2 / ((n_e + n_o) N_e N_o), df = B - 1
-- with p = n / N the unsmoothed proportions (0 ln 0 = 0) and B the item's cells. Each sum adds
-- its terms as DECIMAL(38, 18) (exact, the same on every engine and thread count). An item
-- without source rows has NULL measures.
-- Placeholders: $expected (relation: item, value VARCHAR, n DOUBLE training rows),
--   $observed (relation: item, value VARCHAR, n BIGINT source rows), $items (VALUES
--   i(item, kind, attribute, treatment): every monitored distribution, in output order),
--   $p_values (select_chi_square_p_values.sql over the CTE tests), $stable_below,
--   $major_from (the PSI thresholds).
-- Output columns: kind, attribute, treatment (VARCHAR), bins (BIGINT), n_expected (BIGINT),
--   n_observed (BIGINT), n_unseen (BIGINT), psi, js_distance, chi_square (DOUBLE), df (BIGINT),
--   p_value (DOUBLE), psi_flag (VARCHAR: stable, moderate, major).
-- Rendered by: warehouse_ml/models/living/drift.py.
WITH expected AS (
    SELECT e.item, e.value, SUM(e.n) AS n
    FROM $expected AS e
    GROUP BY e.item, e.value
),
observed AS (
    SELECT o.item, o.value, SUM(o.n) AS n
    FROM $observed AS o
    GROUP BY o.item, o.value
),
cells AS (
    SELECT
        COALESCE(e.item, o.item) AS item,
        CAST(COALESCE(e.n, 0) AS DOUBLE) AS n_e,
        CAST(COALESCE(o.n, 0) AS DOUBLE) AS n_o
    FROM expected AS e
    FULL OUTER JOIN observed AS o ON o.item = e.item AND o.value = e.value
),
totals AS (
    SELECT
        c.item,
        COUNT(*) AS bins,
        CAST(SUM(CAST(c.n_e AS DECIMAL(38, 18))) AS DOUBLE) AS t_e,
        SUM(c.n_o) AS t_o,
        SUM(CASE WHEN c.n_e = 0 THEN c.n_o ELSE 0 END) AS n_unseen
    FROM cells AS c
    GROUP BY c.item
),
shares AS (
    SELECT
        c.item,
        c.n_e,
        c.n_o,
        t.t_e,
        t.t_o,
        c.n_e / NULLIF(t.t_e, 0) AS p_e,
        c.n_o / NULLIF(t.t_o, 0) AS p_o,
        (c.n_e + 0.5) / (t.t_e + 0.5 * t.bins) AS q_e,
        (c.n_o + 0.5) / (t.t_o + 0.5 * t.bins) AS q_o
    FROM cells AS c
    JOIN totals AS t ON t.item = c.item
),
sums AS (
    SELECT
        s.item,
        CAST(SUM(CAST((s.q_o - s.q_e) * LN(s.q_o / s.q_e) AS DECIMAL(38, 18))) AS DOUBLE) AS psi,
        CAST(SUM(CAST(
            CASE WHEN s.p_e > 0 THEN s.p_e * LN(2 * s.p_e / (s.p_e + s.p_o)) ELSE 0.0 END
            + CASE WHEN s.p_o > 0 THEN s.p_o * LN(2 * s.p_o / (s.p_e + s.p_o)) ELSE 0.0 END
            AS DECIMAL(38, 18)
        )) AS DOUBLE) AS js_nats,
        CAST(SUM(CAST(
            (s.n_e * s.t_o - s.n_o * s.t_e) * (s.n_e * s.t_o - s.n_o * s.t_e)
            / NULLIF((s.n_e + s.n_o) * s.t_e * s.t_o, 0)
            AS DECIMAL(38, 18)
        )) AS DOUBLE) AS chi_square
    FROM shares AS s
    GROUP BY s.item
),
tests AS (
    SELECT
        m.item,
        CASE WHEN t.t_o > 0 AND t.t_e > 0 THEN m.chi_square END AS x,
        CAST(t.bins - 1 AS BIGINT) AS df
    FROM sums AS m
    JOIN totals AS t ON t.item = m.item
),
measured AS (
    SELECT
        k.item,
        CASE WHEN t.t_o > 0 AND t.t_e > 0 THEN m.psi END AS psi,
        CASE WHEN t.t_o > 0 AND t.t_e > 0 THEN SQRT(GREATEST(m.js_nats / 2 / LN(2), 0.0)) END
            AS js_distance,
        k.x AS chi_square,
        k.df,
        p.p_value
    FROM tests AS k
    JOIN sums AS m ON m.item = k.item
    JOIN totals AS t ON t.item = k.item
    JOIN ($p_values) AS p ON p.item = k.item
)
SELECT
    i.kind,
    i.attribute,
    i.treatment,
    CAST(COALESCE(t.bins, 0) AS BIGINT) AS bins,
    CAST(ROUND(COALESCE(t.t_e, 0)) AS BIGINT) AS n_expected,
    CAST(COALESCE(t.t_o, 0) AS BIGINT) AS n_observed,
    CAST(COALESCE(t.n_unseen, 0) AS BIGINT) AS n_unseen,
    m.psi,
    m.js_distance,
    m.chi_square,
    CASE WHEN m.chi_square IS NOT NULL THEN m.df END AS df,
    m.p_value,
    CASE
        WHEN m.psi IS NULL THEN NULL
        WHEN m.psi < $stable_below THEN 'stable'
        WHEN m.psi < $major_from THEN 'moderate'
        ELSE 'major'
    END AS psi_flag
FROM $items AS i
LEFT JOIN totals AS t ON t.item = i.item
LEFT JOIN measured AS m ON m.item = i.item
ORDER BY i.item
