-- A parameter table of a model stored before catalog format 3 as scoring reads tables now:
-- with the model partition column wml_part, 0 (a fitted model's).
-- Placeholders: $table (the parameter table).
-- Output columns: wml_part (INTEGER, 0), then every column of the table.
-- Rendered by: warehouse_ml/store/record.py.
SELECT CAST(0 AS INTEGER) AS wml_part, t.*
FROM $table AS t
