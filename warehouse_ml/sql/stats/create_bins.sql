-- A model's bin table: the distinct upper edges of each numeric attribute's equal-frequency
-- tiles, numbered. A value x falls in the first bin whose upper edge is >= x; values above the
-- last edge fall in the last bin (see binning.bin_expression).
-- Placeholders: $table (output), $tiles (attribute, tile, upper; from select_bin_tiles.sql).
-- Output columns: wml_part (INTEGER, 0: bins are learned for one model at a time, a
--   cross-validation of numeric TAN attributes learns each fold's own), attribute (VARCHAR),
--   bin_index (BIGINT, 0-based), upper (DOUBLE).
-- Rendered by: warehouse_ml/stats/binning.py.
CREATE TABLE $table AS
SELECT
    CAST(0 AS INTEGER) AS wml_part,
    e.attribute AS attribute,
    ROW_NUMBER() OVER (PARTITION BY e.attribute ORDER BY e.upper) - 1 AS bin_index,
    e.upper AS upper
FROM (SELECT DISTINCT t.attribute, t.upper FROM $tiles AS t) AS e
