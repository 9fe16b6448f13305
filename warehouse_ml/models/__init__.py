"""Classifiers: the learner protocol (base.py, capabilities.py, kinds.py, training.py) and
its roles, lowest first: scoring/, inspection/, living/, then learners/ (docs/ARCHITECTURE.md)."""
