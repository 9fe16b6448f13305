"""A fitted decision tree's own state, kept in the catalog details (models/state.py): the tree
(nested nodes, tree_model.Node), each node's class probabilities, the numeric attributes'
equal-frequency edges the thresholds were chosen among, and the tree's size."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from warehouse_ml.models.learners.tree_model import Node
from warehouse_ml.models.state import (
    NUMBER,
    OBJECT,
    Fields,
    LearnedState,
    edges_json,
    mapping,
    sequence,
)


@dataclass(frozen=True)
class TreeState(LearnedState):
    """``root`` the tree; ``probabilities`` each node's class probabilities by node id (with
    the model's alpha: a leaf's are its predictions); ``edges`` each numeric attribute's
    candidate thresholds (empty without bins)."""

    root: Node = field(default_factory=lambda: Node(0, 0, []))
    probabilities: Mapping[int, tuple[float, ...]] = field(default_factory=dict)
    edges: Mapping[str, tuple[float, ...]] = field(default_factory=dict)

    @property
    def leaves(self) -> int:
        """The number of leaves."""
        return len(self.root.leaves())

    @property
    def size(self) -> int:
        """The number of nodes."""
        return sum(1 for _ in self.root.walk())

    @property
    def depth(self) -> int:
        """The depth of the deepest leaf (0: the root is a leaf)."""
        return max(n.depth for n in self.root.walk())

    def to_json(self) -> dict[str, Any]:
        return {
            "tree": self.root.to_json(),
            "node_probabilities": {str(k): list(v) for k, v in self.probabilities.items()},
            "tree_edges": edges_json(self.edges),
            "leaves": self.leaves,
            "depth": self.depth,
        }

    @classmethod
    def from_json(cls, fields: Fields) -> TreeState:
        fields.take("leaves", NUMBER, None)  # derived from the tree, shown in the catalog
        fields.take("depth", NUMBER, None)
        probabilities = fields.take("node_probabilities", mapping(sequence(NUMBER)))
        return cls(
            root=Node.from_json(fields.take("tree", OBJECT)),
            probabilities={int(k): tuple(v) for k, v in probabilities.items()},
            edges=fields.take("tree_edges", mapping(sequence(NUMBER)), {}),
        )
