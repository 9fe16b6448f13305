"""The model families, each one module with its templates under sql/models/learners/<family>/
and one entry in models/kinds.py."""
