-- The training rows of a linear SVM in the order its Platt sigmoids' folds deal them, each
-- with the span of unit slots its weight covers: rows ordered as an unstratified k-fold split
-- with seed 0 ranks them (sql/evaluation/splits/: each row's MD5 of
-- '0:0:' || CAST(key AS VARCHAR)), or in scan order without a key; a row's span is
-- [start, end), start the exact sum of the weights of the rows before it, end = start + its
-- weight (slot i belongs to fold i modulo k: platt_fold_weight.sql).
-- Placeholders: $source (relation), $columns (list of h.<column> items: the source's
--   columns), $row_key (expression over src: the key column, or ROW_NUMBER() OVER () without
--   one), $digest (over d.wml_key: its digest, split_digest_text.sql digested by the engine
--   adapter; without a key d.wml_key itself), $sort_keys (list of aliased items over
--   k.wml_digest), $sort_order (list of h.<sort key> columns), $weight (the row's weight over
--   h: CAST(weight AS DECIMAL(38, 18)), or 1 unweighted), $start, $end (the span columns'
--   names).
-- Output columns: the $columns, then $start and $end (DOUBLE, exact sums read back).
-- Rendered by: warehouse_ml/models/learners/linear/svm/platt.py.
SELECT
    $columns,
    CAST(
        COALESCE(
            SUM($weight) OVER (
                ORDER BY $sort_order ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING
            ),
            0
        ) AS DOUBLE
    ) AS $start,
    CAST(
        SUM($weight) OVER (
            ORDER BY $sort_order ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
        ) AS DOUBLE
    ) AS $end
FROM (
    SELECT k.*, $sort_keys
    FROM (
        SELECT d.*, $digest AS wml_digest
        FROM (SELECT src.*, $row_key AS wml_key FROM $source AS src) AS d
    ) AS k
) AS h
