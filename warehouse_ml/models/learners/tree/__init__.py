"""The decision tree: growth from per-level counts, splits, pruning, scoring and inspection;
templates under warehouse_ml/sql/models/learners/tree/."""
