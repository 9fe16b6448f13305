-- Engine-specific (PostgreSQL): double precision values as text in their shortest exact form
-- for the rest of the transaction (integrity.py checksums the text of parameter tables; the
-- session's own extra_float_digits setting comes back at the transaction's end). Output: none.
-- Rendered by: warehouse_ml/engines/postgres.py.
SET LOCAL extra_float_digits = 1
