-- The training rows of a linear SVM dealt to the folds its Platt sigmoids are fitted over, as
-- an unstratified k-fold split with seed 0 deals them (sql/evaluation/splits/: each row's MD5
-- of '0:0:' || CAST(key AS VARCHAR), rows ranked by it, fold = 0-based rank modulo k).
-- Placeholders: $source (relation), $columns (list of h.<column> items: the source's
--   columns), $row_key (expression over src: the key column, or ROW_NUMBER() OVER () without
--   one), $digest (the digest of d.wml_key: split_digest_text.sql, digested by the engine
--   adapter), $sort_keys (list of aliased items over k.wml_digest), $sort_order (list of
--   h.<sort key> columns), $folds (integer k >= 2), $fold (the fold column's name).
-- Output columns: the $columns, then $fold (INTEGER in [0, k)).
-- Rendered by: warehouse_ml/models/learners/linear_svm_platt.py.
SELECT
    $columns,
    CAST(MOD(ROW_NUMBER() OVER (ORDER BY $sort_order) - 1, $folds) AS INTEGER) AS $fold
FROM (
    SELECT k.*, $sort_keys
    FROM (
        SELECT d.*, $digest AS wml_digest
        FROM (SELECT src.*, $row_key AS wml_key FROM $source AS src) AS d
    ) AS k
) AS h
