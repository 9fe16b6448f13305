"""What a fitted decision tree shows of itself: its rules as text, the picture of its nodes,
its attributes ranked by the information their splits gained, their importances
(scikit-learn's ``feature_importances_``) and each row's decision path (the query behind
``DecisionTree.explain``).

A decision path explains the predicted class's probability step by step: at each split on the
row's path from the root, the change of that class's probability from the parent node to the
child the row goes to (in probability, not nats: a tree's score is no sum of log terms). The
node probabilities are the training counts of each node with the model's ``alpha``
(tree_model.node_probabilities), so a path's changes add up to the leaf's probability (the
prediction) minus the root's (the training prior), exactly but for the rounding of each
difference.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.models.learners.tree_model import Impurity, Node, Split, route, weighted_decrease
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal

PATH = "wml_path"
"""The step holding each row's path: its nodes by depth, prediction and tested values."""


Probabilities = Mapping[int, Sequence[float]]
"""Each node's class probabilities by node id (tree_model.node_probabilities)."""


def predicted(probabilities: Probabilities, node: Node) -> int:
    """The class index a node predicts: its most probable class, the first of equals."""
    return int(np.argmax(probabilities[node.id]))


def rules_text(root: Node, probabilities: Probabilities, classes: Sequence[Any]) -> str:
    """The tree as indented rules, as Weka's J48 prints them: one line per branch, ``|   ``
    per level, a leaf's line ending in its class and ``(training weight/misclassified)``."""

    def leaf(node: Node) -> str:
        label = predicted(probabilities, node)
        errors = node.weight - node.counts[label]
        return f"{classes[label]} ({node.weight:g}/{errors:g})"

    lines: list[str] = []

    def visit(node: Node, level: int) -> None:
        assert node.split is not None
        for b, child in enumerate(node.children):
            test = "|   " * level + node.split.describe(b)
            if child.split is None:
                lines.append(f"{test}: {leaf(child)}")
            else:
                lines.append(test)
                visit(child, level + 1)

    if root.split is None:
        lines.append(f": {leaf(root)}")
    else:
        visit(root, 0)
    size = sum(1 for _ in root.walk())
    lines += ["", f"Number of leaves: {len(root.leaves())}", f"Size of the tree: {size}"]
    return "\n".join(lines)


def chart_tree(
    root: Node, probabilities: Probabilities, classes: Sequence[Any]
) -> tuple[dict[str, str | None], dict[str, float]]:
    """The tree as charts.tree draws one: each node's label (its number, the test that leads
    to it, then its split attribute, or for a leaf its class and weight) with its parent's,
    and each node's share of its parent's training weight (the edge's label)."""
    parents: dict[str, str | None] = {}
    shares: dict[str, float] = {}

    def label(node: Node, test: str) -> str:
        if node.split is not None:
            return f"#{node.id} {test}{node.split.attribute}?"
        return f"#{node.id} {test}{classes[predicted(probabilities, node)]} ({node.weight:g})"

    def visit(node: Node, name: str) -> None:
        assert node.split is not None
        for b, child in enumerate(node.children):
            child_name = label(child, node.split.describe(b) + ": ")
            parents[child_name] = name
            shares[child_name] = child.weight / node.weight if node.weight > 0 else 0.0
            if child.split is not None:
                visit(child, child_name)

    name = label(root, "")
    parents[name] = None
    if root.split is not None:
        visit(root, name)
    return parents, shares


def ranking(root: Node, features: Sequence[str], impurity: Impurity) -> pa.Table:
    """Each feature's total weighted gain: the sum over the splits on it of the node's share
    of the training weight times the split's information gain (bits; a threshold's less its
    C4.5 penalty), so the bits per training row its splits gained. Columns: attribute,
    weighted_gain (float64 bits), splits (int64), importance (float64, :func:`importances` of
    the ``impurity``), rank (int64, 1 the largest weighted gain, ties to the earlier
    feature)."""
    total = root.weight
    gained = dict.fromkeys(features, 0.0)
    splits = dict.fromkeys(features, 0)
    for node in root.walk():
        if node.split is not None and total > 0:
            gained[node.split.attribute] += node.weight / total * node.split.gain
            splits[node.split.attribute] += 1
    order = sorted(features, key=lambda f: (-gained[f], list(features).index(f)))
    importance = dict(zip(features, importances(root, features, impurity).tolist(), strict=True))
    return pa.table(
        {
            "attribute": pa.array(order, pa.string()),
            "weighted_gain": pa.array([gained[f] for f in order], pa.float64()),
            "splits": pa.array([splits[f] for f in order], pa.int64()),
            "importance": pa.array([importance[f] for f in order], pa.float64()),
            "rank": pa.array(range(1, len(order) + 1), pa.int64()),
        }
    )


def importances(root: Node, features: Sequence[str], impurity: Impurity) -> np.ndarray:
    """Each feature's importance, scikit-learn's ``feature_importances_``: the sum over its
    splits of N_t / N (imp(t) - sum_b N_b / N_t imp(b)) (tree_model.weighted_decrease over
    the training weight N; a multiway split's sum over its every branch), normalised to sum 1
    (all 0 for a tree that is one leaf); float64, in ``features`` order."""
    found = np.zeros(len(features))
    for node in root.walk():
        if node.split is not None:
            found[list(features).index(node.split.attribute)] += weighted_decrease(node, impurity)
    total = found.sum()
    return found / total if total > 0 else found


def _simple_case(
    subject: exp.Expression, pairs: Sequence[tuple[Any, exp.Expression]], type_: str
) -> exp.Expression:
    """``CASE subject WHEN k THEN v ... END``, or a typed NULL without pairs."""
    if not pairs:
        return exp.cast(exp.null(), type_)
    case = exp.Case(this=subject.copy())
    for key, value in pairs:
        case = case.when(literal(key), value)
    return case


def path_query(
    root: Node,
    probabilities: Probabilities,
    classes: Sequence[Any],
    numbered: exp.Query,
    passthrough: Sequence[tuple[str, str]],
    row: str,
    value_of: Callable[[Split], exp.Expression],
    text_of: Callable[[str], exp.Expression],
) -> exp.Query:
    """Each row's decision path, one row per split on it, in row order then step order.

    ``numbered`` is the source with its 1-based scan position in column ``row`` (read as
    ``s``); ``value_of`` the row's value a split tests (tree_model.route) and ``text_of`` an
    attribute's value as shown, both over ``s``. Output columns: the ``passthrough`` columns
    ((source column, output name) pairs), ``class`` (the predicted class), ``step`` (int, 1
    for the root's split), ``attribute`` (the split attribute), ``test`` (the branch taken,
    in words), ``value`` (the row's value as text), ``change`` (float64, the predicted class's
    probability at the child less at the parent)."""
    nodes = list(root.walk())
    parent_of = {c.id: n for n in nodes for c in n.children}
    branch_of = {c.id: b for n in nodes for b, c in enumerate(n.children)}
    depth = max(1, max(n.depth for n in nodes))
    k = len(classes)
    items = [alias(column(c, "s"), f"wml_k_{i}") for i, (c, _) in enumerate(passthrough)]
    items.append(alias(column(row, "s"), "wml_row"))
    prediction = route(root, value_of, lambda n: literal(predicted(probabilities, n)))
    items.append(alias(prediction or exp.null(), "wml_pred"))
    for d in range(1, depth + 1):
        at = route(root, value_of, lambda n, d=d: literal(n.id) if n.depth == d else None, d)
        shown = route(
            root, value_of,
            lambda n, d=d: text_of(n.split.attribute)
            if n.depth == d - 1 and n.split is not None else None,
            d - 1,
        )  # fmt: skip
        items += [alias(at or exp.null(), f"wml_n_{d}"), alias(shown or exp.null(), f"wml_v_{d}")]
    paths = exp.select(*items).from_(numbered.subquery("s"))
    steps = []
    for d in range(1, depth + 1):
        node = column(f"wml_n_{d}")
        at_depth = [n for n in nodes if n.depth == d]

        def per_node(value: Callable[[Node], exp.Expression], type_: str) -> exp.Expression:
            return _simple_case(node, [(n.id, value(n)) for n in at_depth], type_)  # noqa: B023

        def change(n: Node) -> exp.Expression:
            parent = probabilities[parent_of[n.id].id]
            child = probabilities[n.id]
            return _simple_case(
                column("wml_pred"),
                [(c, literal(float(child[c] - parent[c]))) for c in range(k)],
                "DOUBLE",
            )

        def split_of(n: Node) -> Split:
            split = parent_of[n.id].split
            assert split is not None
            return split

        steps.append(
            exp.select(
                *[alias(column(f"wml_k_{i}"), name) for i, (_, name) in enumerate(passthrough)],
                alias(
                    _simple_case(
                        column("wml_pred"),
                        [(c, literal(classes[c])) for c in range(k)],
                        "VARCHAR",
                    ),
                    "class",
                ),
                alias(literal(d), "step"),
                alias(per_node(lambda n: literal(split_of(n).attribute), "VARCHAR"), "attribute"),
                alias(
                    per_node(lambda n: literal(split_of(n).describe(branch_of[n.id])), "VARCHAR"),
                    "test",
                ),
                alias(column(f"wml_v_{d}"), "value"),
                alias(per_node(change, "DOUBLE"), "change"),
                alias(column("wml_row"), "wml_row"),
            )
            .from_(PATH)
            .where(exp.Not(this=exp.Is(this=node.copy(), expression=exp.null())))
        )
    union = templates.union_all(steps)
    ordered = (
        exp.select(*[column(name) for _, name in passthrough],
                   *[column(c) for c in ("class", "step", "attribute", "test", "value", "change")])
        .from_(union.subquery("wml_steps"))
        .order_by(column("wml_row"), column("step"))
    )  # fmt: skip
    return ordered.with_(PATH, as_=paths)
