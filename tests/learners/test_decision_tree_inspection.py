"""What a decision tree shows of itself (models/learners/tree/inspection.py), on a tree built
here: its rules as text, its ranking by weighted gain, the part of it a picture draws (its top
levels, wide ones folded to fit), and each row's decision path on DuckDB, whose steps follow a
walk of the tree in Python and whose changes add up to the leaf's probability less the
root's."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from reference import tree_path
from sqlglot import exp

from warehouse_ml.models.learners.tree import inspection as tree_inspection
from warehouse_ml.models.learners.tree.model import Node, Split, node_probabilities
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


def gini(counts: np.ndarray) -> np.ndarray:
    counts = np.asarray(counts, dtype=float)
    return 1 - ((counts / counts.sum(axis=-1, keepdims=True)) ** 2).sum(axis=-1)


def wide(n_values: int = 30) -> Node:
    """A root of ``n_values`` branches of weights 1..n_values, each split in two once."""
    children = []
    for v in range(n_values):
        w = float(v + 1)
        split = Split("x", "threshold", 0.5, (), 0, 0, 0.1, 0.1)
        grandchildren = [Node(100 + 2 * v, 2, [w / 2, 0.0]), Node(101 + 2 * v, 2, [0.0, w / 2])]
        children.append(Node(1 + v, 1, [w / 2, w / 2], split, grandchildren))
    values = tuple((f"value_{v:02d}",) for v in range(n_values))
    total = sum(c.weight for c in children)
    return Node(0, 0, [total / 2, total / 2], Split("city", "values", None, values, 0, 0, 1, 1),
                children)  # fmt: skip


def drawn_names(parents: dict) -> set[str]:
    return {name for name in parents if not name.startswith("more")}


def test_a_drawing_keeps_its_levels_and_folds_the_lightest_branches_of_a_wide_level():
    pytest.importorskip("matplotlib")
    from warehouse_ml import charts

    root = tree()
    p = node_probabilities(root, 0.0)
    parents, style = tree_inspection.drawing(root, p, CLASSES, levels=2)
    assert parents == {"0": None, "1": "0", "2": "0", "3": "0"}  # two levels, none folded
    assert style.labels["0"].splitlines() == ["colour?", "n = 18"]
    assert style.labels["1"].splitlines() == ["= red or other", "x?", "n = 8", "2 leaves below"]
    assert style.labels["3"].splitlines() == ["is NULL", "yes", "(3/1)"]
    assert style.size >= 7.5  # 10 px and more at 96 px an inch
    root = wide()
    p = node_probabilities(root, 0.0)
    width = 6.0
    parents, style = tree_inspection.drawing(root, p, CLASSES, levels=3, width=width)
    assert charts.tree_figure_width(parents, None, style) <= width
    shown = {int(n) for n in drawn_names(parents)} - {0}
    kids = {c.id for c in root.children} & shown
    assert 1 <= len(kids) < 30
    heaviest = sorted(root.children, key=lambda c: (-c.weight, -c.id))[: len(kids)]
    assert kids == {c.id for c in heaviest}  # the lightest are folded
    assert parents["more0"] == "0" and style.labels["more0"].splitlines() == [
        f"+{30 - len(kids)} more",
        f"(n = {sum(c.weight for c in root.children if c.id not in kids):g})",
    ]
    grand = shown - kids
    assert {parents[str(g)] for g in grand} <= {str(k) for k in kids}
    everything, _ = tree_inspection.drawing(root, p, CLASSES, levels=3, width=1000.0)
    assert len(everything) == 1 + 30 + 60  # nothing folded where everything fits


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
