-- A finished lookup block (lookup.py): its partial codes placed at the block's first code,
-- shifted by partition p to p * $width (the codes of one model part).
-- Placeholders: $block (relation: wml_part, slot, lp_0 ..), $first_code, $width (integers),
--   $class_columns (list: b.lp_0 AS lp_0, ...).
-- Output columns: code (BIGINT), lp_0 .. lp_{K-1} (DOUBLE).
-- Rendered by: warehouse_ml/models/keyed_terms/lookup.py.
SELECT CAST(b.wml_part * $width + $first_code + b.slot AS BIGINT) AS code, $class_columns
FROM $block AS b
