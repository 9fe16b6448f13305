-- Expression: the integer value of 8 hex digits of a lowercase hex text (a MD5 digest),
-- portable (no engine-specific hex parsing): the digits at positions $first .. $first + 7.
-- Placeholders: $digest (text), $first (1-based position of the first digit).
-- Rendered by: warehouse_ml/engines/base.py, warehouse_ml/models/learners/tree/pruning.py.
SELECT
    CAST(STRPOS('0123456789abcdef', SUBSTR($digest, $first, 1)) - 1 AS BIGINT) * 268435456
    + (STRPOS('0123456789abcdef', SUBSTR($digest, $first + 1, 1)) - 1) * 16777216
    + (STRPOS('0123456789abcdef', SUBSTR($digest, $first + 2, 1)) - 1) * 1048576
    + (STRPOS('0123456789abcdef', SUBSTR($digest, $first + 3, 1)) - 1) * 65536
    + (STRPOS('0123456789abcdef', SUBSTR($digest, $first + 4, 1)) - 1) * 4096
    + (STRPOS('0123456789abcdef', SUBSTR($digest, $first + 5, 1)) - 1) * 256
    + (STRPOS('0123456789abcdef', SUBSTR($digest, $first + 6, 1)) - 1) * 16
    + (STRPOS('0123456789abcdef', SUBSTR($digest, $first + 7, 1)) - 1) AS number
