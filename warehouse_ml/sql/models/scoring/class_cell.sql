-- Expression: one class's cell of a parameter column, for pivoting by class.
-- Placeholders: $class_index (integer value), $value (the parameter column, e.g. p.log_prob).
-- Rendered by: warehouse_ml/models/scoring/relations.py.
SELECT MAX(CASE WHEN p.class_index = $class_index THEN $value END) AS cell
