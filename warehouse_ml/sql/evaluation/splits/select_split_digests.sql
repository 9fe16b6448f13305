-- Rows of a source with the digest a split ranks them by (splits.py: the MD5 of
-- '<seed>:<repeat>:' || CAST(key AS VARCHAR)), once per repeat: splits.py cross-joins the
-- repeats (VALUES r(wml_repeat)) when there are several, and binds the literal 0 as $repeat when
-- there is one (no join, and the hashed prefix '<seed>:0:' is a constant). Only the library's
-- names are carried: source columns ride along as wml_c_<i> when there is no key to join them
-- back on.
-- Placeholders: $source (relation), $carried (list of "src.<column> AS wml_c_<i>" items: every
--   source column when the rows have no key, else none), $row_key (expression over src: the key
--   column, or ROW_NUMBER() OVER () when there is no key), $stratum (expression over src: the
--   stratification column, or a VARCHAR NULL), $repeat (the literal 0, or r.wml_repeat),
--   $digest (the digest of CAST(seed AS VARCHAR) || ':' || CAST($repeat AS VARCHAR) || ':' ||
--   CAST(k.wml_key AS VARCHAR): split_digest_text.sql, digested by the engine adapter).
-- Output columns: the $carried columns, wml_key, wml_stratum, wml_repeat (INTEGER),
--   wml_digest.
-- Rendered by: warehouse_ml/evaluation/splits.py.
SELECT k.*, $repeat AS wml_repeat, $digest AS wml_digest
FROM (
    SELECT $carried, $row_key AS wml_key, $stratum AS wml_stratum
    FROM $source AS src
) AS k
