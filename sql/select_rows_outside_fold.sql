-- The training rows of one fold: every row of the other folds.
-- Placeholders: $split (fold assignment table), $fold (its fold column), $index (the fold).
-- Output columns: those of $split.
SELECT * FROM $split AS s WHERE s.$fold <> $index
