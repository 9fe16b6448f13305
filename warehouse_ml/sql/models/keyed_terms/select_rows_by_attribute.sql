-- The scored rows unpivoted: one row per scored row and attribute whose value is not NULL (a
-- NULL value contributes 0), holding the row's identity, its model partition, the attribute's
-- name and its key values as text (models/keyed_terms/long_terms.py).
-- Placeholders: $input (the scoring query's input step), $row (its column identifying a row:
--   a unique key, or the query's row number), $partition (the row's model partition: its
--   partition column, or 0), $attributes (a VALUES relation aliased a, columns wml_i: the
--   attribute's position in the CASEs, and attribute: its name), $present (CASE a.wml_i WHEN
--   i THEN <attribute i's value IS NOT NULL> ... END), $key_columns (list of aliased CASE
--   a.wml_i WHEN i THEN <attribute i's key value as text> ... END items, named as the stored
--   key columns).
-- Output columns: wml_key (as $row), wml_part (INTEGER), attribute (text), then the key columns
--   (text).
-- Rendered by: warehouse_ml/models/keyed_terms/long_terms.py.
SELECT s.$row AS wml_key, $partition AS wml_part, a.attribute AS attribute, $key_columns
FROM $input AS s
CROSS JOIN $attributes
WHERE $present
