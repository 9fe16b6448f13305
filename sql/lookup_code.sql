-- Expression: the code of an integer-coded attribute's value in a model's lookup table
-- (create_nb_lookup.sql): first_code + (value - low) for a value within the seen range, the
-- attribute's unseen slot for any other value, its NULL slot for NULL.
-- Placeholders: $value (the scored column), $low, $high (the seen range), $first_code,
--   $unseen_slot (high - low + 1), $null_slot (high - low + 2): integer values.
-- Output: code (BIGINT).
SELECT
    CAST(
        $first_code + CASE
            WHEN $value IS NULL THEN $null_slot
            WHEN $value < $low OR $value > $high THEN $unseen_slot
            ELSE CAST($value AS BIGINT) - $low
        END AS BIGINT
    ) AS code
