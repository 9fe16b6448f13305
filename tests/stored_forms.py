"""Models as their catalog row would hold other details: what an earlier version stored, or
a layout left out. Read back as the catalog reads a row (models/state.py), so the typed
state's reading of the old form is what the tests use."""

from __future__ import annotations

import dataclasses
from typing import Any

from warehouse_ml.models.base import Classifier
from warehouse_ml.models.reading import read_state


def details_of(model: Classifier) -> dict[str, Any]:
    """The catalog details of ``model``'s record (its state as JSON)."""
    return model.record.state.to_json()


def with_details(model: Classifier, details: dict[str, Any]) -> Classifier:
    """``model`` as if its catalog row held ``details``."""
    record = model.record
    state = read_state(record.kind, record.name, details)
    return type(model).from_record(dataclasses.replace(record, state=state))
