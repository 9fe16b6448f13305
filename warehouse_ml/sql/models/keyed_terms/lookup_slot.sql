-- Expression: the slot of an integer-coded attribute's value in a lookup block
-- (select_lookup_slots.sql): value - low for a value within the seen range, the attribute's
-- unseen slot for any other value, its NULL slot for NULL.
-- Placeholders: $value (the scored column), $low, $high (the seen range), $unseen_slot
--   (high - low + 1), $null_slot (high - low + 2): integer values.
-- Output: slot (BIGINT).
-- Rendered by: warehouse_ml/models/keyed_terms/lookup.py.
SELECT
    CASE
        WHEN $value IS NULL THEN $null_slot
        WHEN $value < $low OR $value > $high THEN $unseen_slot
        ELSE CAST($value AS BIGINT) - $low
    END AS slot
