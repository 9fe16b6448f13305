"""A decision tree as data (models/learners/tree/model.py): the nested CASE that routes a row
agrees with a walk of the tree in Python by the documented rule (thresholds, value sets, NULLs
to the stored branch, unseen values to the heaviest) on DuckDB, and so does the walk of its
node table one join per level (models/learners/tree/scoring.py), to the same probabilities;
node probabilities with alpha; C4.5's pessimistic pruning against Weka's error estimate
computed here."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pyarrow as pa
import pytest
from reference import tree_path
from sqlglot import exp

from warehouse_ml.engines import connect
from warehouse_ml.models.learners.tree import scoring as tree_scoring
from warehouse_ml.models.learners.tree.model import (
    Node,
    Split,
    node_probabilities,
    prune_pessimistic,
    route,
)
from warehouse_ml.models.scoring.query import score_query
from warehouse_ml.models.scoring.scores import ClassProbabilities
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import TableName, column, literal


def random_tree(rng, depth: int, counter: list[int], level: int = 0) -> Node:
    """A tree over a number ``x`` and a text ``c`` (values v0..v4), with random splits; each
    node's counts are rows (its rows their sum)."""
    counts = [float(v) for v in rng.integers(0, 9, 3)]
    node = Node(counter[0], level, counts, rows=int(sum(counts)))
    counter[0] += 1
    if level == depth or rng.random() < 0.2:
        return node
    kind = rng.choice(["threshold", "values", "subset"])
    if kind == "threshold":
        split = Split("x", "threshold", float(rng.normal()), (), int(rng.integers(0, 2)),
                      int(rng.integers(0, 2)), 0.1, 0.1)  # fmt: skip
    elif kind == "values":
        values = [(f"v{i}",) for i in sorted(rng.choice(5, rng.integers(2, 4), replace=False))]
        values.append(())  # the NULL branch
        split = Split("c", "values", None, tuple(values), len(values) - 1,
                      int(rng.integers(0, len(values))), 0.1, 0.1)  # fmt: skip
    else:
        left = tuple(f"v{i}" for i in (0, 1))
        split = Split("c", "subset", None, (left, ("v2", "v3")), int(rng.integers(0, 2)),
                      int(rng.integers(0, 2)), 0.1, 0.1)  # fmt: skip
    node.split = split
    node.children = [
        random_tree(rng, depth, counter, level + 1) for _ in range(len(split.values) or 2)
    ]
    return node


def scored_rows(con, rng, n: int = 300) -> tuple[list, list]:
    """``n`` rows of ``x`` (numbers) and ``c`` (v0..v6: v5 and v6 in no split), 15% NULL
    each, registered as ``rows`` with their number ``i``."""
    x = [None if rng.random() < 0.15 else float(rng.normal()) for _ in range(n)]
    c = [None if rng.random() < 0.15 else f"v{rng.integers(0, 7)}" for _ in range(n)]
    con.register("rows", pa.table({"i": range(n), "x": pa.array(x, pa.float64()), "c": c}))
    return x, c


def value_of(split: Split) -> exp.Expression:
    """The value of ``x`` or ``c`` of the scored row ``s`` that ``split`` tests."""
    name = "x" if split.kind == "threshold" else "c"
    as_value = expressions.as_double if split.kind == "threshold" else expressions.as_text
    return as_value(column(name, "s"))


@pytest.mark.parametrize("seed", range(8))
def test_the_routing_case_follows_the_documented_rule(con, seed):
    rng = np.random.default_rng(seed)
    root = random_tree(rng, 4, [0])
    n = 300
    x, c = scored_rows(con, rng, n)
    routed = route(root, value_of, lambda leaf: literal(leaf.id))
    query = exp.select(column("i", "s"), templates.alias(routed, "leaf")).from_("rows AS s")
    got = dict(con.execute(templates.generate(query, "duckdb")).fetchall())
    assert [got[i] for i in range(n)] == [
        tree_path(root, {"x": x[i], "c": c[i]})[-1].id for i in range(n)
    ]


@pytest.mark.parametrize("seed", range(8))
def test_the_node_table_walk_gives_the_nested_case_probabilities(con, seed):
    rng = np.random.default_rng(100 + seed)
    root = random_tree(rng, 3 + seed % 4, [0])
    probabilities = node_probabilities(root, float(seed % 2))
    x, c = scored_rows(con, rng)
    routes = TableName(("routes",))
    con.execute("DROP TABLE IF EXISTS routes")
    tree_scoring.write_routes(connect(con), routes, [root], ["x", "c"])
    leaves = [
        (0, n.id, True, i, p) for n in root.leaves() for i, p in enumerate(probabilities[n.id])
    ]
    nodes = exp.select("*").from_(
        templates.values(
            leaves, "v", ("wml_part", "node", "leaf", "class_index", "leaf_probability")
        )
    )
    walked = tree_scoring.walked_probabilities([root], ["x", "c"], 3, routes, nodes, value_of)
    cases = ClassProbabilities(
        [
            route(root, value_of, lambda leaf, i=i: literal(probabilities[leaf.id][i]))
            for i in range(3)
        ]
    )
    got = []
    for scores in (walked, cases):
        query = score_query(
            exp.to_table("rows"), scores, ["a", "b", "c"], passthrough=[("i", "i")],
            probability_names=["p_a", "p_b", "p_c"], prediction_name=None,
        )  # fmt: skip
        table = con.sql(templates.generate(query, "duckdb")).to_arrow_table().sort_by("i")
        got.append(np.column_stack([table[f"p_{k}"].to_numpy() for k in "abc"]))
    expected = []
    for i in range(len(x)):
        leaf = probabilities[tree_path(root, {"x": x[i], "c": c[i]})[-1].id]
        expected.append(np.array(leaf) / sum(leaf))
    np.testing.assert_allclose(got[0], got[1], rtol=0, atol=1e-15)
    np.testing.assert_allclose(got[0], np.array(expected), rtol=0, atol=1e-15)


def test_node_probabilities_are_laplace_smoothed_and_empty_nodes_take_their_parents():
    root = Node(0, 0, [3.0, 1.0], Split("x", "threshold", 0.0, (), 0, 0, 0.1, 0.1),
                [Node(1, 1, [3.0, 1.0]), Node(2, 1, [0.0, 0.0])])  # fmt: skip
    for alpha in (0.0, 1.0):
        p = node_probabilities(root, alpha)
        assert p[0] == pytest.approx([(3 + alpha) / (4 + 2 * alpha), (1 + alpha) / (4 + 2 * alpha)])
        assert p[2] == p[0] if alpha == 0 else p[2] == pytest.approx([0.5, 0.5])


def weka_errors(n: float, e: float, cf: float) -> float:
    """Weka's Stats.addErrs plus the errors: the upper limit of the Wilson interval (with
    continuity correction) as the larger root of its quadratic."""
    if e < 1:
        base = n * (1 - cf ** (1 / n))
        extra = base if e == 0 else base + e * (weka_errors(n, 1, cf) - 1 - base)
        return e + extra
    if e + 0.5 >= n:
        return e + max(n - e, 0.0)
    z = statistics.NormalDist().inv_cdf(1 - cf)
    f = (e + 0.5) / n
    a, b = 1 + z * z / n, 2 * f + z * z / n  # a r^2 - b r + f^2 = 0
    upper = (b + math.sqrt(max(b * b - 4 * a * f * f, 0.0))) / (2 * a)
    return upper * n


def scaled(node: Node, factor: float) -> Node:
    """``node``'s tree with every count (a weight) times ``factor``, the rows as they are."""
    return Node(node.id, node.depth, [c * factor for c in node.counts], node.split,
                [scaled(c, factor) for c in node.children], node.rows)  # fmt: skip


@pytest.mark.parametrize("scale", [1.0, 1e-6, 1e6])
@pytest.mark.parametrize("confidence", [0.1, 0.25, 0.5])
def test_pessimistic_pruning_replaces_a_subtree_when_its_leaf_errs_no_more(confidence, scale):
    """Weka's estimate of a node's rows, whatever the scale of its weights (C4.5's N is the
    node's rows, its errors the weighted share misclassified of them)."""
    rng = np.random.default_rng(int(confidence * 100))
    root = scaled(random_tree(rng, 4, [0]), scale)

    def expected(node: Node) -> tuple[tuple, float]:
        n = node.rows
        e = n * (1 - max(node.counts) / sum(node.counts)) if n else 0
        leaf = 0.0 if n == 0 else weka_errors(n, e, confidence)
        if node.split is None:
            return (node.id, ()), leaf
        children = [expected(c) for c in node.children]
        subtree = sum(err for _, err in children)
        if leaf <= subtree + 0.1 + 1e-6:
            return (node.id, ()), leaf
        return (node.id, tuple(s for s, _ in children)), subtree

    def shape(node: Node) -> tuple:
        return (node.id, tuple(shape(c) for c in node.children))

    want, errors = expected(root)
    got = prune_pessimistic(root, confidence)
    assert shape(root) == want
    assert got == pytest.approx(errors, abs=1e-9)
    assert math.isfinite(got)
