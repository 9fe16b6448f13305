-- Expression: 1 when a row's class is the given class, else 0 (leave-one-out: how much the row
-- itself adds to that class's counts).
-- Placeholders: $label (the row's class as text, CAST(target AS VARCHAR)), $class_label (the
--   class's label as stored in the model, a string value).
-- Output: own (INTEGER 0 or 1).
-- Rendered by: warehouse_ml/evaluation/loo.py.
SELECT CASE WHEN $label = $class_label THEN 1 ELSE 0 END AS own
