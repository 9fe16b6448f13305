"""A stored model's typed state read through the registry of kinds: the one reader that needs
the model's family (its ``state_class``), apart from models/state.py, which knows no family."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from warehouse_ml.models import kinds
from warehouse_ml.models.state import FittedState


def read_state(kind: str, model: str, facts: Mapping[str, Any]) -> FittedState:
    """The state of model ``model`` of ``kind`` from its catalog details: the state class its
    family declares (``state_class``, found through the registry, models/kinds.py); an
    IncompatibleModelError for a kind unknown here or a malformed field."""
    return FittedState.from_json(facts, kinds.class_of(kind, model).state_class, model)
