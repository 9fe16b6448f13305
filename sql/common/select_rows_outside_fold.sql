-- The training rows of one fold: every row of the other folds.
-- Placeholders: $split (fold assignment table), $fold (its fold column), $index (the fold).
-- Output columns: those of $split.
-- Rendered by: warehouse_ml/evaluation/crossval.py.
SELECT * FROM $split AS s WHERE s.$fold <> $index
