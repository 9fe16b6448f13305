-- DuckDB: each scored row's k nearest stored rows, as their class index and reduced distance,
-- from its one pass of top-k aggregates (models/learners/neighbors/search.py BoundedSearch): wml_smallest, the
-- list of its k + 1 smallest reduced distances, and wml_classes, the classes of k stored rows
-- at its k smallest distances, both in ascending order of distance. Only the rows whose k-th
-- distance is below the (k + 1)-th (or that have at most k stored rows) are taken: the k
-- nearest are then the same whichever rows a tie inside them picks.
-- Placeholders: $grouped (list of the columns of u identifying a scored row: those of $heaps),
--   $heaps (h: the grouped columns, wml_smallest and wml_classes), $k and $k_and_one (k and
--   k + 1, integers).
-- Output columns: the grouped ones, wml_reduced (DOUBLE), class_index (INTEGER).
-- Rendered by: warehouse_ml/models/learners/neighbors/search.py.
SELECT
    $grouped,
    u.wml_reduced AS wml_reduced,
    u.class_index AS class_index
FROM (
    SELECT
        h.*,
        UNNEST(h.wml_classes) AS class_index,
        UNNEST(h.wml_smallest[1:len(h.wml_classes)]) AS wml_reduced
    FROM $heaps AS h
    WHERE
        len(h.wml_smallest) <= $k
        OR list_extract(h.wml_smallest, $k) < list_extract(h.wml_smallest, $k_and_one)
) AS u
