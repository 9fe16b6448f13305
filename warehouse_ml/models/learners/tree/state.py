"""A fitted decision tree's own state, kept in the catalog details (models/state.py): the tree
(nested nodes, tree_model.Node), each node's class probabilities, the numeric attributes'
equal-frequency edges the thresholds were chosen among, and the tree's size; a
cross-validation's models, one such tree per fold."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from warehouse_ml.models.learners.tree.model import Node
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
    candidate thresholds (empty without bins). A cross-validation's models:
    ``partition_trees``, each fold's tree as such a state (the others unset)."""

    root: Node = field(default_factory=lambda: Node(0, 0, []))
    probabilities: Mapping[int, tuple[float, ...]] = field(default_factory=dict)
    edges: Mapping[str, tuple[float, ...]] = field(default_factory=dict)
    partition_trees: tuple[TreeState, ...] = ()

    @property
    def trees(self) -> tuple[TreeState, ...]:
        """Each model partition's tree: a cross-validation's, one per fold; else this one."""
        return self.partition_trees or (self,)

    @property
    def leaves(self) -> int:
        """The number of leaves (of every fold's tree together, for cross-validation)."""
        return sum(len(t.root.leaves()) for t in self.trees)

    @property
    def size(self) -> int:
        """The number of nodes (of every fold's tree together, for cross-validation)."""
        return sum(1 for t in self.trees for _ in t.root.walk())

    @property
    def depth(self) -> int:
        """The depth of the deepest leaf (0: the root is a leaf), of every fold's tree."""
        return max(n.depth for t in self.trees for n in t.root.walk())

    def to_json(self) -> dict[str, Any]:
        if self.partition_trees:
            return {
                "partition_trees": [t.to_json() for t in self.partition_trees],
                "leaves": self.leaves,
                "depth": self.depth,
            }
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
        trees = fields.take("partition_trees", sequence(OBJECT), None)
        if trees is not None:
            return cls(
                partition_trees=tuple(
                    cls.from_json(Fields(t, fields.model, f"{fields.path}partition_trees.{i}."))
                    for i, t in enumerate(trees)
                )
            )
        probabilities = fields.take("node_probabilities", mapping(sequence(NUMBER)))
        return cls(
            root=Node.from_json(fields.take("tree", OBJECT)),
            probabilities={int(k): tuple(v) for k, v in probabilities.items()},
            edges=fields.take("tree_edges", mapping(sequence(NUMBER)), {}),
        )
