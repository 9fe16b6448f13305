-- Every row and column of a relation (e.g. Arrow data written as a table of the demo, cli.py).
-- Placeholders: $source (relation). Output columns: those of $source.
-- Rendered by: warehouse_ml/cli/demo.py, warehouse_ml/evaluation/result.py.
SELECT * FROM $source AS src
