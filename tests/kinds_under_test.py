"""The registered model kinds, for the tests that hold for every kind."""

from __future__ import annotations

from warehouse_ml.models import kinds

KIND_CLASSES = [spec.load() for spec in kinds.specs()]
"""Every registered kind's class, for the tests elsewhere that hold for any kind."""
