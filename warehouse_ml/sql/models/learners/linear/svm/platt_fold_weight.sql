-- Expression: the part of a row's weight that falls in fold f of a linear SVM's Platt folds:
-- the row covers the unit slots [start, end) (select_platt_folds.sql), slot i belongs to fold
-- i modulo k, and the part is the measure of [start, end) inside fold f's slots,
-- G(end) - G(start) with G(x) = FLOOR(x / k) + LEAST(GREATEST(x - k FLOOR(x / k) - f, 0), 1)
-- the measure of [0, x) inside them. A weight of 1 is one slot, all in one fold; an integer
-- weight w is w consecutive slots, as w consecutive copies of the row.
-- Placeholders: $start, $end (DOUBLE), $folds (integer k >= 2), $fold (integer f in [0, k)).
-- Rendered by: warehouse_ml/models/learners/linear/svm/platt.py.
SELECT
    FLOOR($end / $folds) + LEAST(GREATEST($end - $folds * FLOOR($end / $folds) - $fold, 0), 1)
    - FLOOR($start / $folds)
    - LEAST(GREATEST($start - $folds * FLOOR($start / $folds) - $fold, 0), 1) AS part
