-- Every source row next to its split position, joined back by key: the positions were ranked
-- over narrow rows (select_split_positions.sql carrying only the key), which sorts much less
-- data than carrying every column through the window.
-- Placeholders: $positions (relation from select_split_positions.sql), $source (relation),
--   $key (the key column, unique and non-NULL).
-- Output columns: every source column, wml_repeat (INTEGER), wml_position (BIGINT).
SELECT src.*, p.wml_repeat AS wml_repeat, p.wml_position AS wml_position
FROM $positions AS p
JOIN $source AS src ON src.$key = p.wml_key
