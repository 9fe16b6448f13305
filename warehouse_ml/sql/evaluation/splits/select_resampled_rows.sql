-- Rows of a resample (resampling.py): class c keeps quota_c of its n_c rows, dealt in split
-- order (select_split_positions.sql ranks each class's rows by their MD5 digest): copy j of
-- the row at rank r (1-based) is kept when j * n_c + r <= quota_c, so under-sampling (quota
-- below n_c, copy 0 only) keeps the quota_c rows of lowest digest and over-sampling repeats
-- every row floor(quota_c / n_c) times and the (quota_c mod n_c) rows of lowest digest once
-- more. Rows whose class is NULL, or not among the quotas, are left out.
-- Placeholders: $positions (relation from select_split_positions.sql, stratified by the
--   class), $columns (list of aliased p.<column> items), $quotas (VALUES q(class_label, n,
--   quota): class_label the class as the engine casts it to text), $copies (VALUES
--   c(wml_copy): 0 .. the most copies any class needs - 1).
-- Output columns: the $columns, then "copy" (INTEGER: 0 for a row's first appearance, 1, 2,
--   ... for its repeats).
-- Rendered by: warehouse_ml/evaluation/resampling.py.
SELECT $columns, CAST(c.wml_copy AS INTEGER) AS "copy"
FROM $positions AS p
JOIN $quotas AS q ON CAST(p.wml_stratum AS VARCHAR) = q.class_label
JOIN $copies AS c ON c.wml_copy * q.n + p.wml_rank <= q.quota
