"""Growing a decision tree level by level inside the warehouse.

Per level, ONE statement counts the rows (a weighted fit: their summed weights) of every open
node per (attribute, value or bin, class): the row's node is a nested CASE over the tree grown
so far (tree_model.route; no UPDATE of the source), rows of closed leaves are left out, and the
attributes are counted in blocks (stats/counting.py, the node as the count's partition column).
A numeric attribute is counted on its bin index (the equal-frequency edges of
decision_tree.py), or, without bins, on its distinct values. The same statement counts each
node's classes (a pseudo-attribute whose value is the class), so a node's NULL counts of an
attribute are its class counts less the attribute's, exact (DECIMAL weights, BIGINT rows).
The split of each open node is then chosen in numpy on that small table (tree_splits.py).

A wide model (more than counting.MAX_COUNTED_ATTRIBUTES attributes) counts a level chunk by
chunk, one statement per chunk.
"""

from __future__ import annotations

import decimal
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners import tree_splits
from warehouse_ml.models.learners.tree_model import Node, Split, route
from warehouse_ml.models.learners.tree_splits import AttributeCounts, Candidate
from warehouse_ml.models.scoring import names
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import expressions
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats import binning, counting
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.features import NUMERIC, valued_source
from warehouse_ml.stats.validation import CardinalityCheck

ROUTED = "wml_routed"
"""The step of a level's count statement holding the rows of open nodes with their node, read
by every block of attributes (one evaluation of the routing CASE per row)."""
_EXACT = decimal.Context(prec=100)
"""Counts are DECIMAL(38, 18) sums or integers: subtracted exactly at this precision."""


@dataclass(frozen=True)
class Settings:
    """What growing needs of the learner's parameters (decision_tree.DecisionTree)."""

    criterion: str
    splits: str
    max_depth: int | None
    min_leaf: float


def split_value(split: Split, value: exp.Expression) -> exp.Expression:
    """The row's value a split tests (tree_model.route): ``CAST(x AS DOUBLE)`` for a
    threshold, the value as text otherwise (as counted and stored)."""
    if split.kind == tree_splits.THRESHOLD:
        return expressions.as_double(value)
    return expressions.as_text(value)


def counted_values(
    training: Training, edges: Mapping[str, Sequence[float]] | None
) -> dict[str, exp.Expression]:
    """What a level counts of each numeric attribute of the row ``src``: its bin index on
    ``edges``, or, without bins, the number itself (as DOUBLE)."""
    values: dict[str, exp.Expression] = {}
    for feature in training.features:
        if feature.kind == NUMERIC:
            x = expressions.as_double(column(feature.name, "src"))
            values[feature.name] = (
                x if edges is None else binning.bin_expression(x, edges[feature.name])
            )
    return values


def level_query(
    training: Training,
    root: Node,
    open_ids: set[int],
    values: Mapping[str, exp.Expression],
    attributes: Sequence[str],
) -> tuple[exp.Query, str]:
    """The count statement of one level for ``attributes`` (and the class-count
    pseudo-attribute, whose name is returned with it), numeric ones counted as ``values``
    (:func:`counted_values`). Output columns as counting.categorical_counts: wml_part (the
    node), attribute, value (text: a categorical value, a bin index, or a number's distinct
    value), class_label, n."""
    relation = valued_source(training.source.relation, training.carried, training.features)
    columns = [*training.source.columns]
    node_column = names.fresh("wml_node", columns)
    totals = names.fresh("wml_classes", [f.name for f in training.features])

    def leaf(node: Node) -> exp.Expression | None:
        return literal(node.id) if node.id in open_ids else None

    routed = route(root, lambda s: split_value(s, column(s.attribute, "src")), leaf)
    named = isinstance(relation, (exp.Table, exp.Subquery))  # a table, or an aliased query
    source = exp.select(exp.Star()).from_(relation) if named else relation
    inner = exp.select(
        exp.Star(), alias(routed or exp.null(), node_column, copy=False), copy=False
    ).from_(source.subquery("src", copy=False), copy=False)
    rows = (
        exp.select(exp.Star(), copy=False)
        .from_(inner.subquery("wml_nodes", copy=False), copy=False)
        .where(exp.Not(this=exp.Is(this=column(node_column), expression=exp.null())), copy=False)
    )
    counted = {a: values[a] for a in attributes if a in values}
    counted[totals] = column(training.target, "src")
    query = counting.categorical_counts(
        exp.to_table(ROUTED), training.target, [*attributes, totals], partition=node_column,
        weight=training.weight, values=counted,
    )  # fmt: skip
    return query.with_(ROUTED, as_=rows, copy=False), totals  # every block reads them


def count_level(
    warehouse: Warehouse,
    training: Training,
    root: Node,
    open_ids: set[int],
    values: Mapping[str, exp.Expression],
) -> tuple[dict[int, list[Any]], dict[tuple[int, str], dict[str, list[Any]]]]:
    """The counts of one level: each open node's class counts, and per (node, attribute)
    each value's class counts, read by one statement per chunk of attributes; exact (integer
    rows, or DECIMAL summed weights)."""
    k = len(training.classes[0])
    index = {c.label: c.index for c in training.classes[0]}
    names_ = [f.name for f in training.features]
    totals: dict[int, list[Any]] = {}
    by_value: dict[tuple[int, str], dict[str, list[Any]]] = defaultdict(dict)
    for chunk in counting.blocks(names_, counting.MAX_COUNTED_ATTRIBUTES):
        query, total_name = level_query(training, root, open_ids, values, chunk)
        found = warehouse.fetch_tree(query)
        rows = zip(
            *(found[c].to_pylist() for c in (PARTITION, "attribute", "value", "class_label", "n")),
            strict=True,
        )
        for node, attribute, value, label, n in rows:
            if attribute == total_name:
                totals.setdefault(node, [0] * k)[index[label]] = n
            else:
                by_value[node, attribute].setdefault(value, [0] * k)[index[label]] = n
    return totals, by_value


def attribute_counts(
    name: str,
    numeric: bool,
    cells: Mapping[str, list[Any]],
    totals: list[Any],
    binned: bool,
) -> tuple[AttributeCounts, list[str]]:
    """One attribute's counts at a node (tree_splits.AttributeCounts) and its values as
    counted (text), in split order: bins by index, numbers ascending, text in code-point
    order."""
    order = sorted(cells, key=int if binned else float) if numeric else sorted(cells)
    k = len(totals)
    exact = [cells[v] for v in order]
    with decimal.localcontext(_EXACT):  # DECIMAL(38, 18) sums, added and subtracted exactly
        nulls = [totals[c] - sum(e[c] for e in exact) for c in range(k)]
    matrix = np.array(exact, dtype=float).reshape(len(order), k)
    counts = AttributeCounts(
        name, numeric, matrix, np.array(nulls, dtype=float), any(x > 0 for x in nulls)
    )
    return counts, order


def make_split(
    chosen: Candidate,
    order: Sequence[str],
    edges: Mapping[str, Sequence[float]] | None,
    criterion: str,
) -> Split:
    """The stored split of a chosen candidate: a threshold at the left side's bin edge or,
    without bins, at the midpoint of the two values either side (scikit-learn's rule: the
    lower value when the midpoint rounds to the upper); categorical branches by value text;
    unseen values to the heaviest branch (the first of equal weights)."""
    weights = chosen.parts.sum(axis=1)
    heaviest = int(np.argmax(weights))
    score = {
        tree_splits.ENTROPY: chosen.gain,
        tree_splits.GINI: chosen.gini,
        tree_splits.GAIN_RATIO: chosen.gain_ratio,
    }[criterion]
    if chosen.kind == tree_splits.THRESHOLD:
        last = order[max(chosen.groups[0])]
        if edges is not None:
            threshold = float(edges[chosen.attribute][int(last)])
        else:
            low, high = float(last), float(order[max(chosen.groups[0]) + 1])
            threshold = low / 2.0 + high / 2.0
            threshold = low if threshold == high else threshold
        return Split(
            chosen.attribute, chosen.kind, threshold, (), chosen.null, heaviest,
            chosen.penalised_gain, score,
        )  # fmt: skip
    values = tuple(tuple(order[i] for i in group) for group in chosen.groups)
    return Split(
        chosen.attribute, chosen.kind, None, values, chosen.null, heaviest, chosen.gain, score
    )


def grow(
    warehouse: Warehouse,
    training: Training,
    settings: Settings,
    edges: Mapping[str, Sequence[float]] | None,
    check: CardinalityCheck,
) -> Node:
    """The tree of ``training`` (one model), grown level by level until no node is open: a
    node is open when it is impure, weighs at least twice ``min_leaf`` and is above
    ``max_depth``; an open node whose best candidate gains nothing becomes a leaf. The
    high-cardinality ``check`` is made on the root's counts, before the second level."""
    k = len(training.classes[0])
    numeric = {f.name for f in training.features if f.kind == NUMERIC}
    root = Node(0, 0, [float(c.n) for c in training.classes[0]])
    frontier = {0: root} if _is_open(root, settings) else {}
    next_id = 1
    values = counted_values(training, edges)
    while frontier:
        totals, by_value = count_level(warehouse, training, root, set(frontier), values)
        if not check.made:
            check({a: len(v) for (node, a), v in by_value.items() if node == 0})
        opened: dict[int, Node] = {}
        for node_id, node in sorted(frontier.items()):
            node_totals = totals.get(node_id, [0] * k)
            node.counts = [float(x) for x in node_totals]
            found, orders = [], {}
            for feature in training.features:
                counts, orders[feature.name] = attribute_counts(
                    feature.name, feature.name in numeric,
                    by_value.get((node_id, feature.name), {}), node_totals, edges is not None,
                )  # fmt: skip
                found.append(
                    tree_splits.candidates(
                        counts, settings.criterion, settings.splits, settings.min_leaf
                    )
                )
            chosen = tree_splits.choose(found, settings.criterion)
            if chosen is None:
                continue
            node.split = make_split(chosen, orders[chosen.attribute], edges, settings.criterion)
            for part in chosen.parts:
                child = Node(next_id, node.depth + 1, [float(x) for x in part])
                next_id += 1
                node.children.append(child)
                if _is_open(child, settings):
                    opened[child.id] = child
        frontier = opened
    return root


def _is_open(node: Node, settings: Settings) -> bool:
    deep = settings.max_depth is not None and node.depth >= settings.max_depth
    impure = sum(1 for c in node.counts if c > 0) >= 2
    return not deep and impure and node.weight >= 2 * settings.min_leaf
