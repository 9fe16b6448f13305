-- DuckDB: the scored rows of a k-NN search whose k-th and (k + 1)-th smallest reduced distances
-- are equal (a tie across the k-th neighbour, which the tie rule breaks by the stored rows'
-- keys), each with its bound, the k-th distance, for a second pass over the pairs within it
-- (models/learners/neighbors/search.py BoundedSearch).
-- Placeholders: $heaps (h: the columns identifying a scored row and its coordinates,
--   wml_smallest, the list of its k + 1 smallest reduced distances in ascending order, and
--   wml_classes), $k and $k_and_one (k and k + 1, integers).
-- Output columns: those of $heaps, then wml_bound (DOUBLE).
-- Rendered by: warehouse_ml/models/learners/neighbors/search.py.
SELECT
    h.*,
    list_extract(h.wml_smallest, $k) AS wml_bound
FROM $heaps AS h
WHERE
    len(h.wml_smallest) > $k
    AND list_extract(h.wml_smallest, $k) = list_extract(h.wml_smallest, $k_and_one)
