-- Expression: the digest a split ranks rows by (DESIGN.md section 3 rule 5), as 32 lowercase
-- hex digits: MD5('<seed>:<repeat>:' || CAST(key AS VARCHAR)).
-- Placeholders: $seed (integer), $repeat (the repeat column), $key (the key column).
-- Output: digest (VARCHAR).
-- Rendered by: warehouse_ml/evaluation/splits.py.
SELECT
    MD5(CAST($seed AS VARCHAR) || ':' || CAST($repeat AS VARCHAR) || ':' || CAST($key AS VARCHAR))
        AS digest
