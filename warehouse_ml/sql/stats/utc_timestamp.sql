-- Expression: a timestamp with a time zone as its UTC wall-clock time (a timestamp without
-- one), whose text does not depend on the session's time zone: how such a categorical value
-- is counted, stored and compared (features.value_expression). Spark has no AT TIME ZONE: it
-- is rewritten there from the epoch microseconds (dialects.py).
-- Placeholders: $value.
-- Rendered by: warehouse_ml/stats/features.py.
SELECT $value AT TIME ZONE 'UTC' AS utc_value
