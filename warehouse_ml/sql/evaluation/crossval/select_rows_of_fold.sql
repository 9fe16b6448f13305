-- The held-out rows of one fold that have a class.
-- Placeholders: $split (fold assignment table), $fold (its fold column), $index (the fold,
--   an integer value), $target (the class column).
-- Output columns: those of $split.
-- Rendered by: warehouse_ml/evaluation/out_of_fold.py.
SELECT * FROM $split AS s WHERE s.$fold = $index AND s.$target IS NOT NULL
