"""What a decision tree shows of itself (models/learners/tree_inspection.py), on a tree built
here: its rules as text, its ranking by weighted gain, and each row's decision path on DuckDB,
whose steps follow a walk of the tree in Python and whose changes add up to the leaf's
probability less the root's."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from reference import tree_path
from sqlglot import exp

from warehouse_ml.models.learners import tree_inspection
from warehouse_ml.models.learners.tree_model import Node, Split, node_probabilities
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import column

CLASSES = ["no", "yes"]


def tree() -> Node:
    """colour = red | blue | NULL (own branch); red splits on x <= 1.5 (NULLs right)."""
    red = Node(1, 1, [2.0, 6.0], Split("x", "threshold", 1.5, (), 1, 1, 0.3, 0.3),
               [Node(4, 2, [2.0, 1.0]), Node(5, 2, [0.0, 5.0])])  # fmt: skip
    return Node(
        0, 0, [9.0, 9.0],
        Split("colour", "values", None, (("red",), ("blue",), ()), 2, 0, 0.4, 0.4),
        [red, Node(2, 1, [6.0, 1.0]), Node(3, 1, [1.0, 2.0])],
    )  # fmt: skip


def test_rules_text_and_ranking():
    root = tree()
    p = node_probabilities(root, 0.0)
    text = tree_inspection.rules_text(root, p, CLASSES)
    assert text.splitlines()[:5] == [
        "colour = red or other",
        "|   x <= 1.5: no (3/1)",
        "|   x > 1.5 or NULL: yes (5/0)",
        "colour = blue: no (7/1)",
        "colour is NULL: yes (3/1)",
    ]
    assert "Number of leaves: 4" in text and "Size of the tree: 6" in text
    ranked = tree_inspection.ranking(root, ["x", "colour", "size"], gini).to_pylist()
    assert [r["attribute"] for r in ranked] == ["colour", "x", "size"]
    assert ranked[0]["weighted_gain"] == pytest.approx(0.4)
    assert ranked[1]["weighted_gain"] == pytest.approx(8 / 18 * 0.3)
    assert [r["splits"] for r in ranked] == [1, 1, 0]
    # Gini decreases times weights: the root's 18 * 0.5 - (8 * 0.375 + 7 * 12/49 + 3 * 4/9)
    # and red's 8 * 0.375 - (3 * 4/9 + 0); their shares of the sum
    root_decrease = 9.0 - (3.0 + 12 / 7 + 4 / 3)
    red_decrease = 3.0 - 4 / 3
    total = root_decrease + red_decrease
    importance = {r["attribute"]: r["importance"] for r in ranked}
    assert importance == pytest.approx(
        {"colour": root_decrease / total, "x": red_decrease / total, "size": 0.0}, abs=1e-12
    )
    parents, shares = tree_inspection.chart_tree(root, p, CLASSES)
    assert len(parents) == 6 and sum(v is None for v in parents.values()) == 1
    assert sorted(shares.values()) == pytest.approx(sorted([8 / 18, 7 / 18, 3 / 18, 3 / 8, 5 / 8]))


def gini(counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    return 1 - ((counts / counts.sum(axis=-1, keepdims=True)) ** 2).sum(axis=-1)


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_decision_paths_follow_the_tree_and_add_up(con, alpha):
    root = tree()
    p = node_probabilities(root, alpha)
    rng = np.random.default_rng(1)
    n = 60
    colour = [rng.choice(["red", "blue", "green", None]) for _ in range(n)]
    x = [None if rng.random() < 0.2 else float(rng.normal(1.5, 1)) for _ in range(n)]
    con.register(
        "rows", pa.table({"id": range(n), "colour": colour, "x": pa.array(x, pa.float64())})
    )
    numbered = templates.build("select_numbered", source=exp.to_table("rows"), row="wml_row")

    def value_of(split: Split) -> exp.Expression:
        value = column(split.attribute, "s")
        return (
            expressions.as_double(value)
            if split.kind == "threshold"
            else expressions.as_text(value)
        )

    query = tree_inspection.path_query(
        root, p, CLASSES, numbered, [("id", "id")], "wml_row", value_of,
        lambda a: expressions.as_text(column(a, "s")),
    )  # fmt: skip
    got = con.sql(templates.generate(query, "duckdb")).to_arrow_table().to_pylist()
    for i in range(n):
        path = tree_path(root, {"colour": colour[i], "x": x[i]})
        leaf = path[-1]
        k = int(np.argmax(p[leaf.id]))
        steps = [r for r in got if r["id"] == i]
        assert [r["step"] for r in steps] == list(range(1, len(path)))
        assert all(r["class"] == CLASSES[k] for r in steps)
        for r, parent, child in zip(steps, path, path[1:]):
            assert r["attribute"] == parent.split.attribute
            assert r["test"] == parent.split.describe(parent.children.index(child))
            shown = colour[i] if parent.split.attribute == "colour" else x[i]
            assert (r["value"] is None) == (shown is None)
            assert r["change"] == pytest.approx(p[child.id][k] - p[parent.id][k], abs=1e-15)
        assert sum(r["change"] for r in steps) == pytest.approx(p[leaf.id][k] - p[0][k], abs=1e-12)
