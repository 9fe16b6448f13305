-- Expression: a floating-point value with its zero made positive: x + 0 is x itself for every
-- number but -0.0, which IEEE 754 addition makes 0.0 (NaN, +-infinity and NULL unchanged; the
-- type kept). -0.0 and 0.0 are equal numbers but may group, count and print as two values
-- (their text is '-0.0' and '0.0'; Arrow tells them apart), so every floating value is counted,
-- stored and compared through this: one number whatever its sign of zero, on every engine.
-- Placeholders: $value (a FLOAT or DOUBLE expression).
-- Rendered by: warehouse_ml/stats/features.py.
SELECT $value + 0 AS value
