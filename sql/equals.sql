-- Expression: an equality join condition.
-- Placeholders: $left, $right.
SELECT $left = $right AS condition
