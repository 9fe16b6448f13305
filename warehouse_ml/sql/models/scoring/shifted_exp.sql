-- Expression: exp(joint - max) of one class; 0 for an impossible class (NULL joint) and when
-- joint - max < -708, where exp falls below the smallest normal DOUBLE (2.2e-308):
-- PostgreSQL raises "value out of range: underflow" there instead of returning a subnormal or
-- 0, and the cut makes every engine return the same 0.
-- Placeholders: $joint (the class's joint log score), $max (the row's largest joint).
-- Rendered by: warehouse_ml/models/scoring/normalise.py.
SELECT
    CASE
        WHEN $joint IS NULL OR $joint - $max < -708 THEN CAST(0 AS DOUBLE)
        ELSE EXP($joint - $max)
    END AS shifted
