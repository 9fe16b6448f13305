-- DuckDB: each scored row's k nearest stored rows, one row per neighbour, from the list of its
-- nearest (a top-k aggregate of structs ordered as the tie rule orders them), its rank the
-- position in the list.
-- Placeholders: $grouped (list of the columns of u identifying a scored row: those of $heaps),
--   $heaps (h: the grouped columns and wml_nearest, the list of structs wml_reduced, neighbour,
--   class_index).
-- Output columns: the grouped ones, wml_reduced (DOUBLE), neighbour (BIGINT), class_index
--   (INTEGER), wml_rank (BIGINT, 1 the nearest).
-- Rendered by: warehouse_ml/models/learners/neighbors/ties.py.
SELECT
    $grouped,
    u.wml_pair.wml_reduced AS wml_reduced,
    u.wml_pair.neighbour AS neighbour,
    u.wml_pair.class_index AS class_index,
    u.wml_rank AS wml_rank
FROM (
    SELECT
        h.*,
        UNNEST(h.wml_nearest) AS wml_pair,
        UNNEST(range(1, len(h.wml_nearest) + 1)) AS wml_rank
    FROM $heaps AS h
) AS u
