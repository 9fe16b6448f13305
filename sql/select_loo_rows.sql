-- Rows scored by leave-one-out: those with a class, with one 0/1 column per class telling
-- whether the row is of that class (how much it adds to that class's counts; loo_own.sql).
-- Placeholders: $source (relation), $target (the class column), $own_columns (list of aliased
--   loo_own.sql items over src, wml_own_<i> per class i).
-- Output columns: those of $source, then wml_own_<i> (INTEGER 0 or 1) per class.
SELECT src.*, $own_columns FROM $source AS src WHERE src.$target IS NOT NULL
