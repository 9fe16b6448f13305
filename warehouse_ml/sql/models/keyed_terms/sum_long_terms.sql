-- The terms of a scoring query read in long format (one row per scored row and attribute,
-- one column per class) summed per scored row: one row per scored row with one column per
-- class.
-- Placeholders: $cells (relation with columns wml_key, the scored row's key, and one term
--   column per class: one row per scored row and attribute whose value is not NULL),
--   $class_sums (list of aliased summed_class_terms.sql items, one per class).
-- Output columns: wml_key (the scored row's key, as in $cells), then the class columns (DOUBLE
--   natural log, NULL for an impossible class).
-- Rendered by: warehouse_ml/models/keyed_terms/long_terms.py.
SELECT c.wml_key AS wml_key, $class_sums
FROM $cells AS c
GROUP BY c.wml_key
