-- Engine-specific (PostgreSQL): no JIT compilation for the rest of the transaction, run before
-- each of the library's statements. The library's statements are wide (a Newton pass of a
-- linear model or a TAN score holds thousands of expressions), and LLVM compiles them far
-- slower than PostgreSQL evaluates them: a linear SVM's line pass over 160 rows of a table not
-- yet analysed (whose row estimate passes jit_above_cost) took 27 s with JIT and 0.7 s
-- without. The session's own jit setting comes back at the transaction's end. Output: none.
-- Rendered by: warehouse_ml/engines/postgres.py.
SET LOCAL jit = off
