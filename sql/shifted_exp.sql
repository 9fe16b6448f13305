-- Expression: exp(joint - max) of one class, 0 for an impossible class (NULL joint).
-- Placeholders: $joint (the class's joint log score), $max (the row's largest joint).
SELECT COALESCE(EXP($joint - $max), CAST(0 AS DOUBLE)) AS shifted
