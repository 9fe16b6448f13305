-- Expression: the text a split digests for each row (docs/ARCHITECTURE.md, "Deterministic
-- splits"): '<seed>:<repeat>:' || CAST(key AS VARCHAR). The engine adapter turns it into the
-- MD5 digest rows are ranked by (Warehouse.digest / digest_sort_keys in engines/base.py).
-- Placeholders: $seed (integer), $repeat (the repeat column), $key (the key column).
-- Output: text (VARCHAR).
-- Rendered by: warehouse_ml/evaluation/splits.py, warehouse_ml/models/learners/linear/svm/platt.py.
SELECT CAST($seed AS VARCHAR) || ':' || CAST($repeat AS VARCHAR) || ':' || CAST($key AS VARCHAR)
    AS text
