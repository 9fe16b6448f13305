-- Expression: the MD5 digest of a text, 32 lowercase hex digits (integrity.py checksums).
-- Placeholders: $text.
SELECT MD5($text) AS digest
