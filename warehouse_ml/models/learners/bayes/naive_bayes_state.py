"""The fitted state of a Naive Bayes model that is its own (models/state.py: the learner
protocol's ``state_class``), kept in the catalog details under the keys below."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from warehouse_ml.models.state import (
    EDGES,
    INTEGER,
    OBJECT,
    TEXT,
    Fields,
    LearnedState,
    Shape,
    edges_json,
    present,
    row,
    sequence,
)

_ATTRIBUTES = sequence(row(TEXT, INTEGER, INTEGER))
BLOCK = Shape(
    "a lookup block {first_code, attributes: [[name, low, high], ...]}",
    lambda v: (
        OBJECT.accepts(v)
        and set(v) == {"first_code", "attributes"}
        and INTEGER.accepts(v["first_code"])
        and _ATTRIBUTES.accepts(v["attributes"])
    ),
    lambda v: block(v["first_code"], v["attributes"]),
)
"""One block of integer-coded attributes looked up together (models/keyed_terms/lookup.py)."""


def block(first_code: int, attributes: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """A lookup block as models/keyed_terms/lookup.py reads it: its first code and its
    attributes' [name, low, high]."""
    return {"first_code": first_code, "attributes": [list(a) for a in attributes]}


@dataclass(frozen=True)
class NaiveBayesState(LearnedState):
    """* ``histogram_bins``: each numeric attribute's training histogram edges
      (models/learners/bayes/naive_bayes.py; None: a model with no numeric attribute, or stored
      before the histogram);
    * ``lookup``: the blocks of integer-coded attributes scored by one join each (None:
      stored before lookup blocks)."""

    histogram_bins: Mapping[str, tuple[float, ...]] | None = None
    lookup: tuple[dict[str, Any], ...] | None = None

    def histogram_edges(self) -> Mapping[str, tuple[float, ...]]:
        return self.histogram_bins or {}

    def to_json(self) -> dict[str, Any]:
        return present(
            histogram_bins=edges_json(self.histogram_bins),
            lookup=None if self.lookup is None else list(self.lookup),
        )

    @classmethod
    def from_json(cls, fields: Fields) -> NaiveBayesState:
        return cls(
            histogram_bins=fields.take("histogram_bins", EDGES, None),
            lookup=fields.take("lookup", sequence(BLOCK), None),
        )
