-- Every row of a (small) table, e.g. a model's parameters, in a fixed order of its first
-- columns given by $order_columns.
-- Placeholders: $table, $order_columns (list of column references).
SELECT * FROM $table AS t ORDER BY $order_columns
