-- Expression: the square of a design value standardised by its class's own mean and population
-- standard deviation, ((x - mean) / scale)^2 (scikit-learn's StandardScaler on the class's rows:
-- scale 1 for a column constant in the class); summed over the design columns it is the squared
-- norm of the row that Ledoit and Wolf's shrinkage squares again (its fourth moments).
-- Placeholders: $value (the row's design value: a standardised numeric or an indicator, DOUBLE),
--   $mean (DOUBLE, the class's mean of the column), $scale (DOUBLE > 0).
-- Rendered by: warehouse_ml/models/learners/linear/ledoit_wolf.py.
SELECT ((CAST($value AS DOUBLE) - $mean) / $scale) * ((CAST($value AS DOUBLE) - $mean) / $scale)
    AS standardized_square
