-- One attribute's counts per (node of every model's tree, value, class), for a decision tree's
-- level: a fit's one tree, or every cross-validation fold's. Each row comes once, with its node
-- in every model's tree in its own column (NULL where the model does not count it: its node is
-- closed, or the model holds the row's fold out); the rows are first counted per (nodes in
-- every tree, value, class), then each such group counts for every model, under the model's
-- node (a CROSS JOIN with the models' numbers), summed per (node, value, class). The groups
-- are far fewer than the rows where the folds' trees agree, so the rows are not multiplied by
-- the folds. Beside the count (rows, or summed weights), each cell counts its rows of positive
-- weight, which a tree's row thresholds (min_leaf, min_samples_split) read. NULL values and NULL
-- classes are left out.
-- Placeholders: $rows (relation: the rows with their node columns, tree_rows.node_rows),
--   $paths (the node columns of src, aliased as themselves), $path_group (the same, for GROUP
--   BY), $value (the counted value over src), $target (class column), $count (COUNT(*), or
--   the exact sum of a weight column: counting.row_count over src), $rows_count (COUNT(*), or
--   the number of rows of positive weight: tree_rows.positive_rows over src), $attribute (the
--   attribute's name, a string value), $models (VALUES m(...): the models' numbers), $node
--   (the group's node in model m's tree: CASE over m of the h node columns), $sum_type (BIGINT
--   rows, or DECIMAL(38, 18) summed weights: the sum as read, exact).
-- Output columns: wml_part (the node's key, tree_rows.node_key), attribute (VARCHAR), value
--   (VARCHAR), class_label (VARCHAR), n (BIGINT rows, or DECIMAL summed weights), n_rows
--   (BIGINT rows of positive weight).
-- Rendered by: warehouse_ml/models/learners/tree/rows.py.
SELECT
    p.node AS wml_part,
    $attribute AS attribute,
    CAST(p.value AS VARCHAR) AS value,
    CAST(p.class_value AS VARCHAR) AS class_label,
    CAST(SUM(p.n) AS $sum_type) AS n,
    CAST(SUM(p.n_rows) AS BIGINT) AS n_rows
FROM (
    SELECT
        $node AS node, h.value AS value, h.class_value AS class_value, h.n AS n,
        h.n_rows AS n_rows
    FROM (
        SELECT
            $paths, $value AS value, src.$target AS class_value, $count AS n,
            $rows_count AS n_rows
        FROM $rows AS src
        WHERE $value IS NOT NULL AND src.$target IS NOT NULL
        GROUP BY $path_group, $value, src.$target
    ) AS h
    CROSS JOIN $models
) AS p
WHERE p.node IS NOT NULL
GROUP BY p.node, p.value, p.class_value
