-- The training rows of one fold: every row of the other folds.
-- Placeholders: $split (fold assignment table), $fold (its fold column), $index (the fold).
-- Output columns: those of $split.
-- Rendered by: warehouse_ml/evaluation/out_of_fold.py.
SELECT * FROM $split AS s WHERE s.$fold <> $index
