"""The decision tree: growth from per-level counts, splits, pruning, scoring and inspection;
templates under sql/models/learners/tree/."""
