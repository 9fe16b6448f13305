-- Rows whose class is known.
-- Placeholders: $source (relation), $target (the class column). Output columns: those of $source.
-- Rendered by: warehouse_ml/evaluation/crossval.py, warehouse_ml/evaluation/out_of_fold.py.
SELECT * FROM $source AS src WHERE src.$target IS NOT NULL
