-- One more attribute folded into a lookup block (lookup.py): every partial code of the block
-- so far combined with every slot of the attribute, in mixed radix (code * width + slot), the
-- log-probabilities added per class in attribute order (NULL, impossible, stays NULL).
-- Placeholders: $block (relation: wml_part, slot, lp_0 ..), $slots (relation from
--   select_lookup_slots.sql), $attribute (the attribute's name), $width (its slot count:
--   high - low + 3), $class_sums (list: b.lp_i + s.lp_i AS lp_i per class).
-- Output columns: wml_part (INTEGER), slot (BIGINT partial block code), lp_0 .. lp_{K-1}.
-- Rendered by: warehouse_ml/models/keyed_terms/lookup.py.
SELECT b.wml_part AS wml_part, CAST(b.slot * $width + s.slot AS BIGINT) AS slot, $class_sums
FROM $block AS b
JOIN $slots AS s ON s.wml_part = b.wml_part AND s.attribute = $attribute
