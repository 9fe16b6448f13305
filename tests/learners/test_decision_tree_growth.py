"""One level of a decision tree's growth (models/learners/tree/growth.py): the one count
statement of a level gives every open node's class counts and each attribute's (value or bin,
class) counts exactly as a walk of the rows down the tree in Python does, NULLs and values
unseen at a split included; closed nodes are not counted."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from reference import tree_path

from warehouse_ml.engines import session
from warehouse_ml.engines.sources import open_source
from warehouse_ml.models.learners.tree import growth as tree_growth
from warehouse_ml.models.learners.tree.model import Node, Split
from warehouse_ml.models.learners.tree.rows import Grid
from warehouse_ml.models.training import Training, class_counts
from warehouse_ml.stats import binning
from warehouse_ml.stats.features import CATEGORICAL, NUMERIC, Feature


def rows(seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    n = 400
    colour = [None if rng.random() < 0.1 else f"v{rng.integers(0, 4)}" for _ in range(n)]
    x = [None if rng.random() < 0.1 else float(rng.normal()) for _ in range(n)]
    y = [f"k{rng.integers(0, 3)}" for _ in range(n)]
    return pa.table({"colour": colour, "x": pa.array(x, pa.float64()), "y": y})


def tree() -> Node:
    """A root split on colour (v3 unseen at the split: to the heaviest, branch 1; NULL its
    own branch 2), whose branch 0 splits on x <= 0.25 with NULLs left; node 5 closed."""
    left = Node(1, 1, [], Split("x", "threshold", 0.25, (), 0, 0, 0.1, 0.1),
                [Node(4, 2, []), Node(5, 2, [])])  # fmt: skip
    return Node(
        0, 0, [], Split("colour", "values", None, (("v0",), ("v1", "v2"), ()), 2, 1, 0.1, 0.1),
        [left, Node(2, 1, []), Node(3, 1, [])],
    )  # fmt: skip


@pytest.mark.parametrize("bins", [None, 4])
def test_a_levels_counts_equal_a_walk_of_the_rows(con, bins):
    table = rows(bins or 0)
    root = tree()
    open_ids = {2, 3, 4}
    with session(con) as warehouse, open_source(warehouse, table) as src:
        classes, _ = class_counts(warehouse, src, "y")
        features = [Feature("colour", CATEGORICAL, "string"), Feature("x", NUMERIC, "double")]
        training = Training(src, "y", features, [classes])
        edges = (
            None
            if bins is None
            else {"x": binning.fetch_edges(warehouse, src.relation, "y", ["x"], bins)["x"]}
        )
        grid = None if edges is None else Grid.of([edges])
        level = tree_growth.count_level(warehouse, training, [root], open_ids, grid)
    totals, counts = level.totals, level.counts
    by_value = {
        (int(counts.nodes[g]), counts.names[counts.attributes[g]]): {
            level.values[c]: list(counts.cells[c])
            for c in range(counts.starts[g], counts.starts[g + 1])
        }
        for g in range(len(counts.nodes))
    }
    labels = [c.label for c in classes]
    expected_totals: dict[int, list[int]] = {}
    expected: dict[tuple[int, str], dict[str, list[int]]] = {}
    for colour, x, y in zip(*(table[c].to_pylist() for c in ("colour", "x", "y"))):
        node = tree_path(root, {"colour": colour, "x": x})[-1].id
        if node not in open_ids:
            continue
        k = labels.index(y)
        expected_totals.setdefault(node, [0] * len(labels))[k] += 1
        for name, value in (("colour", colour), ("x", x)):
            if value is None:
                continue
            if name == "x":
                value = repr(value) if edges is None else str(binning_index(value, edges["x"]))
            expected.setdefault((node, name), {}).setdefault(value, [0] * len(labels))[k] += 1
    assert totals == expected_totals
    got = {
        key: {_number(v, key[1], edges): c for v, c in cells.items()}
        for key, cells in by_value.items()
    }
    want = {
        key: {_number(v, key[1], edges): c for v, c in cells.items()}
        for key, cells in expected.items()
    }
    assert got == want


def binning_index(value: float, edges) -> int:
    return min(int(np.searchsorted(edges, value, side="left")), len(edges) - 1)


def _number(text: str, attribute: str, edges):
    """A counted value as compared: a number's text read back as the number."""
    return float(text) if attribute == "x" and edges is None else text
