-- DuckDB: the votes of each distinct scored row repeated once per scored row it stands for.
-- Placeholders: $voted (v: the distinct rows' carried columns, wml_copies (BIGINT >= 1) and
--   their votes wml_j_<c>).
-- Output columns: those of v and wml_copy (BIGINT, 0 .. wml_copies - 1).
-- Rendered by: warehouse_ml/models/learners/neighbors/search.py.
SELECT
    *,
    UNNEST(range(v.wml_copies)) AS wml_copy
FROM $voted AS v
