"""A fitted model over time: incremental updates and drift."""
