"""k nearest neighbours: the stored training rows, the one-pass searches, metrics, tie rules and
the fold searches of select_k; templates under sql/models/learners/neighbors/."""
