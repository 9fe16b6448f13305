-- One TAN attribute's rows of a fitted model's resolved table (create_tan_resolved.sql), the
-- relation its term joins once.
-- Placeholders: $table (the resolved table), $attribute (attribute name, a string value).
-- Output columns: parent_seen (INTEGER), parent_value (VARCHAR), value (VARCHAR), lp_0 ..
--   lp_{K-1} (DOUBLE) as stored, attribute (VARCHAR).
-- Rendered by: warehouse_ml/models/keyed_terms/resolved.py.
SELECT r.*
FROM $table AS r
WHERE r.attribute = $attribute
