"""The fitted state of a k-nearest-neighbours model that is its own (models/state.py: the learner
protocol's ``state_class``), kept in the catalog details under the key ``k_nearest_neighbors``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warehouse_ml.models.state import INTEGER, OBJECT, Fields, LearnedState


@dataclass(frozen=True)
class KNearestNeighborsState(LearnedState):
    """``stored_rows``: the training rows stored in the model's ``neighbours`` table (those
    with a class), each a candidate neighbour of every scored row."""

    stored_rows: int

    def to_json(self) -> dict[str, Any]:
        return {"k_nearest_neighbors": {"stored_rows": self.stored_rows}}

    @classmethod
    def from_json(cls, fields: Fields) -> KNearestNeighborsState:
        report = Fields(
            fields.take("k_nearest_neighbors", OBJECT), fields.model, "k_nearest_neighbors."
        )
        return cls(stored_rows=report.take("stored_rows", INTEGER))
