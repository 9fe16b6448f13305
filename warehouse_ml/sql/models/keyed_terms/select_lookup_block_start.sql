-- The first attribute of a lookup block (lookup.py): its slots, as the block's partial codes.
-- Placeholders: $slots (relation from select_lookup_slots.sql), $attribute (its name),
--   $class_columns (list: s.lp_0 AS lp_0, ...).
-- Output columns: wml_part (INTEGER), slot (BIGINT partial block code), lp_0 .. lp_{K-1}.
-- Rendered by: warehouse_ml/models/keyed_terms/lookup.py.
SELECT s.wml_part AS wml_part, s.slot AS slot, $class_columns
FROM $slots AS s
WHERE s.attribute = $attribute
