-- Expression: the cosine distance 1 - cos of two rows from their inner product and squared
-- norms, held in [0, 2] (rounding can take 1 - cos past either end, as scikit-learn's
-- cosine_distances clips it); 1 where either row is the zero vector (its cosine similarity to
-- any row taken as 0, as scikit-learn's). The norms' product is the square root of the squares'
-- product, so two equal rows are at distance 0 exactly (the square root of a rounded square is
-- the number squared).
-- Placeholders: $product (DOUBLE, the inner product), $scored_square, $stored_square (DOUBLE
--   >= 0, each row's squared norm).
-- Rendered by: warehouse_ml/models/learners/neighbors/metrics.py.
SELECT
    CASE
        WHEN $scored_square = 0 OR $stored_square = 0 THEN CAST(1 AS DOUBLE)
        ELSE LEAST(
            CAST(2 AS DOUBLE),
            GREATEST(
                CAST(0 AS DOUBLE), 1 - ($product) / SQRT($scored_square * $stored_square)
            )
        )
    END AS cosine_distance
