-- Rows whose class is known.
-- Placeholders: $source (relation), $target (the class column). Output columns: those of $source.
-- Rendered by: warehouse_ml/evaluation/crossval.py.
SELECT * FROM $source AS src WHERE src.$target IS NOT NULL
