-- Expression: the MD5 digest of a text, 32 lowercase hex digits (integrity.py checksums).
-- Placeholders: $text.
-- Rendered by: warehouse_ml/engines/base.py, warehouse_ml/models/learners/tree/pruning.py.
SELECT MD5($text) AS digest
