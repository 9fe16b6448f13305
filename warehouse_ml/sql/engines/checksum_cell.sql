-- Expression: one column's part of a row's checksum text (integrity.py): its text prefixed by
-- its length, so that no two rows share a text, or 'null'.
-- Placeholders: $value (a column).
-- Rendered by: warehouse_ml/engines/base.py.
SELECT
    COALESCE(
        CAST(LENGTH(CAST($value AS VARCHAR)) AS VARCHAR) || ':' || CAST($value AS VARCHAR), 'null'
    ) AS cell
