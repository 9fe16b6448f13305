-- Expression: a two-column equality join condition.
-- Placeholders: $left_1, $right_1, $left_2, $right_2.
-- Rendered by: warehouse_ml/models/tan.py.
SELECT $left_1 = $right_1 AND $left_2 = $right_2 AS condition
