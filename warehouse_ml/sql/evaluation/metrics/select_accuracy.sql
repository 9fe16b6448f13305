-- Accuracy, error, Cohen's kappa and the Wilson-form accuracy interval (docs/ARCHITECTURE.md,
-- "Measures"):
-- (2 N a + z^2 -/+ z sqrt(z^2 + 4 N a - 4 N a^2)) / (2 (N + z^2)).
-- kappa = (a - chance) / (1 - chance), chance = sum over classes of
-- (true count * predicted count) / N^2; NULL when chance = 1.
-- Placeholders: $cells (relation from select_confusion_cells.sql), $z (DOUBLE normal quantile),
--   $level (DOUBLE confidence level), $count_type (BIGINT rows, or DOUBLE summed weights).
-- Output columns: n, correct ($count_type: rows, or their weights), accuracy, error, kappa, level,
--   accuracy_low, accuracy_high (DOUBLE, fractions in [0, 1]).
-- Rendered by: warehouse_ml/evaluation/metrics/confusion.py.
WITH cells AS (
    SELECT x.* FROM $cells AS x
),
actual AS (
    SELECT c.true_index AS class_index, SUM(c.n) AS n FROM cells AS c GROUP BY c.true_index
),
predicted AS (
    SELECT c.predicted_index AS class_index, SUM(c.n) AS n
    FROM cells AS c
    GROUP BY c.predicted_index
),
chance AS (
    SELECT SUM(a.n * p.n) AS agreement
    FROM actual AS a
    JOIN predicted AS p ON p.class_index = a.class_index
),
overall AS (
    SELECT
        SUM(c.n) AS n,
        SUM(CASE WHEN c.true_index = c.predicted_index THEN c.n ELSE 0 END) AS correct
    FROM cells AS c
),
rates AS (
    SELECT
        t.n AS n,
        t.correct AS correct,
        t.correct / CAST(NULLIF(t.n, 0) AS DOUBLE) AS accuracy,
        h.agreement / (CAST(NULLIF(t.n, 0) AS DOUBLE) * t.n) AS chance
    FROM overall AS t
    CROSS JOIN chance AS h
)
SELECT
    CAST(r.n AS $count_type) AS n,
    CAST(r.correct AS $count_type) AS correct,
    r.accuracy AS accuracy,
    1 - r.accuracy AS error,
    (r.accuracy - r.chance) / NULLIF(1 - r.chance, 0) AS kappa,
    $level AS level,
    (
        2 * r.n * r.accuracy + $z * $z
        - $z * SQRT($z * $z + 4 * r.n * r.accuracy - 4 * r.n * r.accuracy * r.accuracy)
    ) / (2 * (r.n + $z * $z)) AS accuracy_low,
    (
        2 * r.n * r.accuracy + $z * $z
        + $z * SQRT($z * $z + 4 * r.n * r.accuracy - 4 * r.n * r.accuracy * r.accuracy)
    ) / (2 * (r.n + $z * $z)) AS accuracy_high
FROM rates AS r
