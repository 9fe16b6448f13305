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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners import tree_splits
from warehouse_ml.models.learners.tree_model import Node, Split, route
from warehouse_ml.models.learners.tree_splits import Candidate, LevelCounts
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
BLOCK_SIZE = 1
"""Attributes per block of a level's count (stats/counting.py): the node is one more key of
each block's joint table, which grows with the open nodes times the product of the block's
values, so a block holds one attribute (bench/tree.py, 1M rows x 20 attributes, depth 10:
the ten levels' counts took 19 s of CPU with blocks of one attribute, 26 s with blocks of
four; the routed rows are computed once, in the statement's first step)."""


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


def as_src(relation: exp.Expression) -> exp.Subquery:
    """``relation`` (a table, an aliased query or a query) as the subquery ``src``."""
    named = isinstance(relation, (exp.Table, exp.Subquery))
    return (exp.select(exp.Star()).from_(relation) if named else relation).subquery("src")


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
    valued = [a for a in attributes if a in values]
    taken = [*columns, node_column]
    for _ in valued:
        taken.append(names.fresh("wml_value", taken))
    value_names = dict(zip(valued, taken[len(columns) + 1 :], strict=True))
    inner = exp.select(
        exp.Star(), alias(routed or exp.null(), node_column, copy=False),
        *(alias(values[a].copy(), value_names[a], copy=False) for a in valued), copy=False,
    ).from_(as_src(relation), copy=False)  # fmt: skip
    rows = (
        exp.select(exp.Star(), copy=False)
        .from_(inner.subquery("wml_nodes", copy=False), copy=False)
        .where(exp.Not(this=exp.Is(this=column(node_column), expression=exp.null())), copy=False)
    )
    counted = {a: column(value_names[a], "src") for a in valued}  # computed once per row
    counted[totals] = column(training.target, "src")
    query = counting.categorical_counts(
        exp.to_table(ROUTED), training.target, [*attributes, totals], BLOCK_SIZE,
        partition=node_column, weight=training.weight, values=counted,
    )  # fmt: skip
    return query.with_(ROUTED, as_=rows, copy=False), totals  # every block reads them


@dataclass(frozen=True)
class Level:
    """One level's counts: ``totals`` each open node's class counts, ``counts`` its (node,
    attribute) groups' (tree_splits.LevelCounts; exact: int64 rows or Decimal summed
    weights) and ``values`` each of their cells' value as counted (text), in split order:
    bins by index, numbers ascending, text in code-point order."""

    totals: dict[int, list[Any]]
    counts: LevelCounts
    values: np.ndarray

    def values_of(self, node: int, attribute: str) -> list[str]:
        """The values of ``attribute`` at ``node``, in split order."""
        counts = self.counts
        position = list(counts.names).index(attribute)
        g = int(np.flatnonzero((counts.nodes == node) & (counts.attributes == position))[0])
        return list(self.values[counts.starts[g] : counts.starts[g + 1]])

    def cardinalities(self, node: int) -> dict[str, int]:
        """Each attribute's number of distinct values at ``node`` (attributes with one)."""
        counts, sizes = self.counts, np.diff(self.counts.starts)
        return {
            counts.names[int(a)]: int(n)
            for a, n, at in zip(counts.attributes, sizes, counts.nodes == node, strict=True)
            if at
        }


def _ranks(values: pa.Array, kind: Callable[[str], Any] | None) -> np.ndarray:
    """Each of an attribute's counted ``values``' rank in split order, ``kind`` the sort key
    of a value's text (None: the text)."""
    ordered = sorted(pc.unique(values).to_pylist(), key=kind)
    return pc.index_in(values, pa.array(ordered, pa.string())).to_numpy()


def count_level(
    warehouse: Warehouse,
    training: Training,
    root: Node,
    open_ids: set[int],
    values: Mapping[str, exp.Expression],
    binned: bool,
) -> Level:
    """The counts of one level (:class:`Level`), read by one statement per chunk of
    attributes; exact (integer rows, or DECIMAL summed weights)."""
    labels = pa.array([c.label for c in training.classes[0]], pa.string())
    names_ = [f.name for f in training.features]
    found = []
    for chunk in counting.blocks(names_, counting.MAX_COUNTED_ATTRIBUTES):
        query, total_name = level_query(training, root, open_ids, values, chunk)
        table = warehouse.fetch_tree(query)
        position = pc.index_in(table["attribute"], pa.array([*names_, total_name], pa.string()))
        found.append(table.drop_columns(["attribute"]).append_column("position", position))
    table = pa.concat_tables(found)
    node = table[PARTITION].to_numpy().astype(np.int64)
    attribute = table["position"].to_numpy().astype(np.int64)
    label = pc.index_in(table["class_label"], labels).to_numpy().astype(np.int64)
    n = table["n"].to_numpy()
    ids = np.array(sorted(open_ids), dtype=np.int64)
    node_totals = np.zeros((len(ids), len(labels)), dtype=n.dtype)
    total = attribute == len(names_)
    node_totals[np.searchsorted(ids, node[total]), label[total]] = n[total]
    rank = np.zeros(len(node), dtype=np.int64)
    for a, feature in enumerate(training.features):
        at = attribute == a
        if at.any():
            key = (int if binned else float) if feature.kind == NUMERIC else None
            rank[at] = _ranks(pc.filter(table["value"], pa.array(at)), key)
    order = np.flatnonzero(~total)
    order = order[np.lexsort((rank[order], attribute[order], node[order]))]
    keys = np.stack([node[order], attribute[order], rank[order]], axis=1)
    new_cell = np.concatenate([[True], (keys[1:] != keys[:-1]).any(axis=1)])
    cells = np.zeros((int(new_cell.sum()), len(labels)), dtype=n.dtype)
    cells[np.cumsum(new_cell) - 1, label[order]] = n[order]
    first = order[new_cell]
    new_group = np.concatenate(
        [[True], (keys[new_cell][1:, :2] != keys[new_cell][:-1, :2]).any(axis=1)]
    )
    starts = np.append(np.flatnonzero(new_group), len(first))
    group_nodes, group_attributes = node[first][new_group], attribute[first][new_group]
    numeric = np.array([f.kind == NUMERIC for f in training.features])[group_attributes]
    counts = LevelCounts.of(
        names_, group_nodes, group_attributes, numeric, starts, cells,
        node_totals[np.searchsorted(ids, group_nodes)],
    )  # fmt: skip
    texts = np.array(table["value"].take(pa.array(first)).to_pylist(), dtype=object)
    counted = set(node[total].tolist())
    totals = {int(i): list(t) for i, t in zip(ids, node_totals, strict=True) if i in counted}
    return Level(totals, counts, texts)


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
    root = Node(0, 0, [float(c.n) for c in training.classes[0]])
    frontier = {0: root} if _is_open(root, settings) else {}
    next_id = 1
    values = counted_values(training, edges)
    while frontier:
        level = count_level(warehouse, training, root, set(frontier), values, edges is not None)
        if not check.made:
            check(level.cardinalities(0))
        scored = tree_splits.score_level(
            level.counts, settings.criterion, settings.splits, settings.min_leaf
        )
        chosen = tree_splits.choose_level(scored, settings.criterion)
        opened: dict[int, Node] = {}
        for node_id, node in sorted(frontier.items()):
            node.counts = [float(x) for x in level.totals.get(node_id, [0] * k)]
            split = chosen.get(node_id)
            if split is None:
                continue
            order = level.values_of(node_id, split.attribute)
            node.split = make_split(split, order, edges, settings.criterion)
            for part in split.parts:
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
