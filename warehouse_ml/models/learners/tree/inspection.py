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

import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml import charts
from warehouse_ml.models.learners.tree.model import Impurity, Node, Split, route, weighted_decrease
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


DRAWN_LEVELS = 3
"""Levels of a decision tree its picture draws (the root's and two below it): what a reader
follows at a glance; the whole tree is its rules (:func:`rules_text`)."""
DRAWN_WIDTH = 10.0
"""Inches a tree's picture may take, margins included: at 96 px an inch, narrower than a
report's page (1100 px) and a notebook's cell."""
DRAWN_FONT = 9.0
"""Point size of a drawn decision tree's labels: 12 px at 96 px an inch."""
THRESHOLD_DIGITS = 6
"""Significant digits of a threshold as a drawn tree writes it (its rules write it exactly)."""
LABEL_CHARS = 18
"""Characters of a label's line, past which it wraps (a box's width)."""
DRAWN_GAP = 0.12
"""Inches between neighbouring boxes of a drawn decision tree."""


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, LABEL_CHARS) or [""]


def _node_lines(
    node: Node, probabilities: Probabilities, classes: Sequence[Any], cut: bool
) -> list[str]:
    """A drawn node's own lines: its split attribute and weight, or, for a leaf, its class
    and ``(weight/misclassified)`` as :func:`rules_text`; a node whose children are not
    drawn (``cut``) says how many leaves are below it."""
    if node.split is None:
        label = predicted(probabilities, node)
        errors = node.weight - node.counts[label]
        return [*_wrapped(str(classes[label])), f"({node.weight:g}/{errors:g})"]
    below = [f"{len(node.leaves())} leaves below"] if cut else []
    return [*_wrapped(f"{node.split.attribute}?"), f"n = {node.weight:g}", *below]


def drawing(
    root: Node,
    probabilities: Probabilities,
    classes: Sequence[Any],
    levels: int = DRAWN_LEVELS,
    width: float = DRAWN_WIDTH,
) -> tuple[dict[str, str | None], charts.TreeStyle]:
    """The part of the tree its picture draws (charts.tree: each node's parent by name, and the
    style with each node's label): its first ``levels`` levels, at most ``width`` inches wide in
    :data:`DRAWN_FONT` points. A node's label is the test that leads to it (a threshold to
    :data:`THRESHOLD_DIGITS` digits), then its own lines (:func:`_node_lines`). A level too wide
    folds branches, each time the lightest drawn child (the last of equals) of the parent
    drawing the most, into one box per parent (``+k more``, their weight); a level that does not
    fit even with one child per parent is not drawn. Needs matplotlib (labels are measured)."""
    drawn: dict[int, list[int]] = {}  # each inner node's branches drawn, in order
    folded: dict[int, list[int]] = {}  # and those folded into its "more" box

    def tree() -> tuple[dict[str, str | None], charts.TreeStyle]:
        parents: dict[str, str | None] = {}
        labels: dict[str, str] = {}

        def visit(node: Node, parent: str | None, test: list[str]) -> None:
            name = str(node.id)
            parents[name] = parent
            cut = node.split is not None and node.id not in drawn
            labels[name] = "\n".join([*test, *_node_lines(node, probabilities, classes, cut)])
            if node.split is None or node.id not in drawn:
                return
            for b in drawn[node.id]:
                visit(node.children[b], name, _wrapped(node.split.test(b, THRESHOLD_DIGITS)))
            if folded[node.id]:
                more = f"more{node.id}"
                parents[more] = name
                weight = sum(node.children[b].weight for b in folded[node.id])
                labels[more] = f"+{len(folded[node.id])} more\n(n = {weight:g})"

        visit(root, None, [])
        return parents, charts.TreeStyle(DRAWN_FONT, DRAWN_GAP, labels)

    def fits() -> bool:
        parents, style = tree()
        return charts.tree_figure_width(parents, None, style) <= width

    last = [root]
    for _ in range(1, levels):
        opened = [n for n in last if n.split is not None]
        for node in opened:
            drawn[node.id], folded[node.id] = list(range(len(node.children))), []
        while not fits():
            crowded = [n for n in opened if len(drawn[n.id]) > 1]
            if not crowded:
                for node in opened:
                    del drawn[node.id], folded[node.id]
                return tree()
            parent = max(crowded, key=lambda n: len(drawn[n.id]))
            lightest = min(reversed(drawn[parent.id]), key=lambda b: parent.children[b].weight)
            drawn[parent.id].remove(lightest)
            folded[parent.id].append(lightest)
        last = [n.children[b] for n in opened for b in drawn[n.id]]
    return tree()


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
