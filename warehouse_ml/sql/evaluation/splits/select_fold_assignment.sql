-- k-fold assignment: rows dealt round-robin in their split order, so fold sizes differ by at
-- most one and, when stratified, each class's count in a fold is floor or ceil of n_class / k
-- (splits.py).
-- Placeholders: $positions (relation from select_split_positions.sql), $columns (list of
--   aliased p.<column> items: the key, optionally the stratum and source columns),
--   $folds (integer k >= 2; the number of rows for leave-one-out), $fold (the fold column's
--   name: "fold", or a name no source column has).
-- Output columns: the $columns, then $fold (INTEGER in [0, k)).
-- Rendered by: warehouse_ml/evaluation/splits.py.
SELECT $columns, CAST(p.wml_position % $folds AS INTEGER) AS $fold
FROM $positions AS p
