"""k nearest neighbours: the stored training rows, the one-pass searches, metrics, tie rules and
the fold searches of select_k; templates under warehouse_ml/sql/models/learners/neighbors/."""
