-- Expression: 1 for a row whose weight is positive, else 0: summed, the rows of a weighted fit
-- that a decision tree's row thresholds count (min_leaf, min_samples_split, C4.5's |D|), as
-- scikit-learn counts only samples of positive weight.
-- Placeholders: $weight (the row's weight, an expression).
-- Rendered by: warehouse_ml/models/learners/tree/rows.py.
SELECT CASE WHEN $weight > 0 THEN 1 ELSE 0 END AS counted
