-- Appends the rows of a query to an existing table with the same columns. The query is aliased:
-- PostgreSQL rejects a subquery in FROM without one.
-- Placeholders: $table (target table), $rows (a query). Output: none.
-- Rendered by: warehouse_ml/evaluation/out_of_fold.py, warehouse_ml/models/learners/bayes/naive_bayes.py, warehouse_ml/models/training.py.
INSERT INTO $table SELECT * FROM $rows AS wml_rows
