-- Expression: 1 when attribute $other ranks before attribute $part in a row's explanation,
-- else 0: its key (|evidence|, -1 for a NULL evidence, so an infinite evidence comes before
-- every finite one and a NULL one after every other) is greater, or equal with an earlier
-- attribute in the model's feature order (a smaller index). An attribute's rank is 1 + the
-- attributes ranked before it, a total order within a row.
-- Placeholders: $other (the other attribute's index, INTEGER), $other_key (its key, DOUBLE),
-- $part (this attribute's index, INTEGER), $key (its key, DOUBLE).
-- Output: 0 or 1 (INTEGER).
-- Rendered by: warehouse_ml/models/inspection/reasons.py.
SELECT
    CASE
        WHEN $other_key > $key OR ($other_key = $key AND $other < $part) THEN 1
        ELSE 0
    END AS ranked_before
