"""The fitted state of a TAN model that is its own (models/state.py: the learner protocol's
``state_class``), kept in the catalog details under the keys below."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from warehouse_ml.models.state import (
    EDGES,
    INTEGER,
    NUMBER,
    PARENTS,
    TEXT,
    Fields,
    LearnedState,
    edges_json,
    mapping,
    optional,
    present,
    row,
    sequence,
)

Tree = Mapping[str, str | None]
"""Each attribute's parent attribute (None for the root)."""


@dataclass(frozen=True)
class TANState(LearnedState):
    """* ``bins``: the numeric attributes' bin edges (None: stored before them);
    * ``pair_blocks``: the attribute blocks whose pairs were counted together
      (stats/pairs.py; None: stored before them);
    * a fitted model's tree: ``root``, ``parents`` and ``information``, each attribute pair's
      [attribute_i, attribute_j, cmi, mi] in bits, in feature order (None for a
      cross-validation's models);
    * ``partition_parents``: a cross-validation's models, each one's tree (None otherwise);
    * ``lookup``: the integer-coded attributes scored through the lookup table,
      ``{attribute: (first_code, low, high, stride)}`` (models/keyed_terms/lookup.py; None: no
      pair tables, or stored before it);
    * ``resolved``: a fitted model's attributes whose fallback chains the resolved table holds,
      in feature order (models/keyed_terms/resolved.py; None: a cross-validation's models, no pair
      tables, or stored before it)."""

    bins: Mapping[str, tuple[float, ...]] | None = None
    pair_blocks: tuple[tuple[int, ...], ...] | None = None
    root: str | None = None
    parents: Tree | None = None
    information: tuple[tuple[str, str, float | None, float | None], ...] | None = None
    partition_parents: tuple[Tree, ...] | None = None
    lookup: Mapping[str, tuple[int, int, int, int]] | None = None
    resolved: tuple[str, ...] | None = None

    def binned_edges(self) -> Mapping[str, tuple[float, ...]]:
        return self.bins or {}

    def trees(self) -> list[Tree]:
        """Each model partition's tree: a cross-validation's, one per fold; else the fitted
        model's."""
        if self.partition_parents is not None:
            return list(self.partition_parents)
        return [] if self.parents is None else [self.parents]

    def to_json(self) -> dict[str, Any]:
        return present(
            bins=edges_json(self.bins),
            pair_blocks=None if self.pair_blocks is None else [list(b) for b in self.pair_blocks],
            root=self.root,
            parents=None if self.parents is None else dict(self.parents),
            information=None if self.information is None else [list(r) for r in self.information],
            partition_parents=None
            if self.partition_parents is None
            else [dict(t) for t in self.partition_parents],
            lookup=None if self.lookup is None else {a: list(p) for a, p in self.lookup.items()},
            resolved=None if self.resolved is None else list(self.resolved),
        )

    @classmethod
    def from_json(cls, fields: Fields) -> TANState:
        return cls(
            bins=fields.take("bins", EDGES, None),
            pair_blocks=fields.take("pair_blocks", sequence(sequence(INTEGER)), None),
            root=fields.take("root", TEXT, None),
            parents=fields.take("parents", PARENTS, None),
            information=fields.take(
                "information",
                sequence(row(TEXT, TEXT, optional(NUMBER), optional(NUMBER))),
                None,
            ),
            partition_parents=fields.take("partition_parents", sequence(PARENTS), None),
            lookup=fields.take("lookup", mapping(row(INTEGER, INTEGER, INTEGER, INTEGER)), None),
            resolved=fields.take("resolved", sequence(TEXT), None),
        )
