-- Expression: whether a rank falls within the first `fraction` of the rows (half-up rounding).
-- Placeholders: $rank (1-based rank), $rows (row count), $fraction (DOUBLE in (0, 1]).
-- Rendered by: warehouse_ml/evaluation/metrics/lift.py.
SELECT $rank <= FLOOR($fraction * $rows + 0.5) AS within
