-- ZeroR's class probabilities of the models of each partition (wml_part), from their class
-- table: P(c) = (n_c + alpha) / (N + alpha * K), N the partition's rows (or summed weights),
-- K its classes.
-- Placeholders: $table (output), $classes (a class table: wml_part, class_index, n), $alpha
--   (number >= 0).
-- Output columns: wml_part (INTEGER), class_index (INTEGER, 0-based in classes_ order),
--   probability (DOUBLE in [0, 1]).
-- Rendered by: tests/extra_families/zero_rule/zero_rule.py.
CREATE TABLE $table AS
SELECT
    c.wml_part,
    c.class_index,
    (CAST(c.n AS DOUBLE) + $alpha)
        / (SUM(CAST(c.n AS DOUBLE)) OVER (PARTITION BY c.wml_part)
           + $alpha * COUNT(*) OVER (PARTITION BY c.wml_part)) AS probability
FROM $classes AS c
