"""Growing a decision tree level by level inside the warehouse: a fit's one tree, or every
cross-validation fold's tree in the same statements.

Per level, ONE statement counts the rows (a weighted fit: their summed weights, and beside
them the rows of positive weight) of every open node of every model per (attribute, value or
bin, class): the row's node is a nested CASE over
each model's tree grown so far (tree_model.route; no UPDATE of the source), computed once per
row for every model (tree_rows.node_rows), rows of closed leaves are left out, and each
attribute's counts are grouped by the row's nodes in every tree first, then summed per model's
node (tree_rows.node_counts, keyed by tree_rows.node_key).
A numeric attribute is counted on its bin index (each model's equal-frequency edges,
edges.py, counted on their union and summed to each model's own: tree_rows.Grid), or,
without bins, on its distinct values. The same statement counts each
node's classes (a pseudo-attribute whose value is the class), so a node's NULL counts of an
attribute are its class counts less the attribute's, exact (DECIMAL weights, BIGINT rows).
The split of each open node is then chosen in numpy on that small table (splits.py).

A wide model (more than counting.MAX_COUNTED_ATTRIBUTES attributes) counts a level chunk by
chunk, one statement per chunk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.tree import splits as tree_splits
from warehouse_ml.models.learners.tree.model import Node, Split
from warehouse_ml.models.learners.tree.rows import Edges, Grid, node_counts, node_key, node_rows
from warehouse_ml.models.learners.tree.splits import Candidate, LevelCounts
from warehouse_ml.models.scoring import names
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import column, literal
from warehouse_ml.stats import counting
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.features import NUMERIC, value_expression
from warehouse_ml.stats.validation import CardinalityCheck

ROUTED = "wml_routed"
"""The step of a level's count statement holding the rows of open nodes with their node in
every model's tree, read by every attribute's count (one evaluation of the routing CASEs per
row)."""


@dataclass(frozen=True)
class Settings:
    """What growing needs of the learner's parameters (decision_tree.DecisionTree)."""

    criterion: str
    splits: str
    max_depth: int | None
    min_leaf: int
    min_samples_split: int


def counted_values(
    training: Training, grid: Grid | None, attributes: Sequence[str]
) -> dict[str, exp.Expression]:
    """What a level counts of each numeric attribute among ``attributes`` of the row ``src``:
    its bin on the models' union ``grid`` (tree_rows.Grid), or, without bins, the number
    itself as counted (features.value_expression: -0.0 is 0.0), as DOUBLE."""
    values: dict[str, exp.Expression] = {}
    for feature in training.features:
        if feature.kind == NUMERIC and feature.name in attributes:
            x = expressions.as_double(value_expression(feature, column(feature.name, "src")))
            values[feature.name] = x if grid is None else grid.value(feature.name)
    return values


def level_query(
    training: Training,
    roots: Sequence[Node],
    open_keys: set[int],
    grid: Grid | None,
    attributes: Sequence[str],
) -> tuple[exp.Query, str]:
    """The count statement of one level of every model's tree for ``attributes`` (and the
    class-count pseudo-attribute, whose name is returned with it), numeric ones counted as
    :func:`counted_values`. Output columns (select_tree_node_counts.sql): wml_part (the
    node's key, tree_rows.node_key), attribute, value (text: a categorical value, a bin
    index, or a number's distinct value), class_label, n, n_rows."""
    columns = [*training.source.columns]
    totals = names.fresh("wml_classes", [f.name for f in training.features])
    n_models = len(roots)

    def leaf(node: Node, model: int) -> exp.Expression | None:
        key = node_key(node, model, n_models)
        return literal(key) if key in open_keys else None

    values = counted_values(training, grid, attributes)
    taken = list(columns)
    for _ in values:
        taken.append(names.fresh("wml_value", taken))
    value_names = dict(zip(values, taken[len(columns) :], strict=True))
    kept = [training.target, *([training.weight] if training.weight else [])]
    kept += [a for a in attributes if a not in values]
    rows, per_model = node_rows(
        training, roots, leaf, {value_names[a]: e for a, e in values.items()}, kept
    )
    counted = {a: column(value_names.get(a, a), "src") for a in attributes}
    counted[totals] = column(training.target, "src")
    query = templates.union_all(
        node_counts(training, exp.to_table(ROUTED), per_model, a, value)
        for a, value in counted.items()
    )
    return query.with_(ROUTED, as_=rows, copy=False), totals  # every attribute reads them


@dataclass(frozen=True)
class Level:
    """One level's counts: ``totals`` each open node's class counts and ``rows`` its rows of
    positive weight, ``counts`` its (node, attribute) groups' (tree_splits.LevelCounts;
    exact: int64 rows or Decimal summed weights) and ``values`` each of their cells' value as
    counted (text), in split order: bins by index, numbers ascending, text in code-point
    order."""

    totals: dict[int, list[Any]]
    rows: dict[int, int]
    counts: LevelCounts
    values: np.ndarray

    def values_of(self, node: int, attribute: str) -> list[str]:
        """The values of ``attribute`` at ``node``, in split order."""
        counts = self.counts
        position = list(counts.names).index(attribute)
        g = int(np.flatnonzero((counts.nodes == node) & (counts.attributes == position))[0])
        return list(self.values[counts.starts[g] : counts.starts[g + 1]])

    def cardinalities(self, nodes: set[int]) -> dict[str, int]:
        """Each attribute's number of distinct values at ``nodes`` together (attributes with
        one)."""
        counts, found = self.counts, {}
        for g, (node, a) in enumerate(zip(counts.nodes, counts.attributes, strict=True)):
            if int(node) in nodes:
                seen = found.setdefault(counts.names[int(a)], set())
                seen.update(self.values[counts.starts[g] : counts.starts[g + 1]])
        return {a: len(values) for a, values in found.items()}


def _ranks(values: pa.Array, kind: Callable[[str], Any] | None) -> np.ndarray:
    """Each of an attribute's counted ``values``' rank in split order, ``kind`` the sort key
    of a value's text (None: the text)."""
    ordered = sorted(pc.unique(values).to_pylist(), key=kind)
    return pc.index_in(values, pa.array(ordered, pa.string())).to_numpy()


def count_level(
    warehouse: Warehouse,
    training: Training,
    roots: Sequence[Node],
    open_keys: set[int],
    grid: Grid | None,
) -> Level:
    """The counts of one level of every model's tree (:class:`Level`, by node key), read by
    one statement per chunk of attributes; exact (integer rows, or DECIMAL summed weights),
    numeric attributes on each model's own bins."""
    labels = pa.array([c.label for c in training.classes[0]], pa.string())
    names_ = [f.name for f in training.features]
    found = []
    for chunk in counting.blocks(names_, counting.MAX_COUNTED_ATTRIBUTES):
        query, total_name = level_query(training, roots, open_keys, grid, chunk)
        table = warehouse.fetch_tree(query)
        if grid is not None:
            table = grid.own_bins(table, names_, len(roots))
        position = pc.index_in(table["attribute"], pa.array([*names_, total_name], pa.string()))
        found.append(table.drop_columns(["attribute"]).append_column("position", position))
    table = pa.concat_tables(found)
    node = table[PARTITION].to_numpy().astype(np.int64)
    attribute = table["position"].to_numpy().astype(np.int64)
    label = pc.index_in(table["class_label"], labels).to_numpy().astype(np.int64)
    n = table["n"].to_numpy()
    n_rows = table["n_rows"].to_numpy().astype(np.int64)
    ids = np.array(sorted(open_keys), dtype=np.int64)
    node_totals = np.zeros((len(ids), len(labels)), dtype=n.dtype)
    total = attribute == len(names_)
    node_totals[np.searchsorted(ids, node[total]), label[total]] = n[total]
    node_rows = np.bincount(np.searchsorted(ids, node[total]), n_rows[total], len(ids))
    rank = np.zeros(len(node), dtype=np.int64)
    for a, feature in enumerate(training.features):
        at = attribute == a
        if at.any():
            key = (float if grid is None else int) if feature.kind == NUMERIC else None
            rank[at] = _ranks(pc.filter(table["value"], pa.array(at)), key)
    order = np.flatnonzero(~total)
    order = order[np.lexsort((rank[order], attribute[order], node[order]))]
    keys = np.stack([node[order], attribute[order], rank[order]], axis=1)
    new_cell = np.concatenate([[True], (keys[1:] != keys[:-1]).any(axis=1)])
    cells = np.zeros((int(new_cell.sum()), len(labels)), dtype=n.dtype)
    cells[np.cumsum(new_cell) - 1, label[order]] = n[order]
    cell_rows = np.bincount(np.cumsum(new_cell) - 1, n_rows[order], len(cells)).astype(np.int64)
    first = order[new_cell]
    new_group = np.concatenate(
        [[True], (keys[new_cell][1:, :2] != keys[new_cell][:-1, :2]).any(axis=1)]
    )
    starts = np.append(np.flatnonzero(new_group), len(first))
    group_nodes, group_attributes = node[first][new_group], attribute[first][new_group]
    numeric = np.array([f.kind == NUMERIC for f in training.features])[group_attributes]
    at_node = np.searchsorted(ids, group_nodes)
    counts = LevelCounts.of(
        names_, group_nodes, group_attributes, numeric, starts, cells, node_totals[at_node],
        cell_rows, node_rows.astype(np.int64)[at_node],
    )  # fmt: skip
    texts = np.array(table["value"].take(pa.array(first)).to_pylist(), dtype=object)
    counted = set(node[total].tolist())
    totals = {int(i): list(t) for i, t in zip(ids, node_totals, strict=True) if i in counted}
    rows = {int(i): int(r) for i, r in zip(ids, node_rows, strict=True) if i in counted}
    return Level(totals, rows, counts, texts)


def make_split(
    chosen: Candidate,
    order: Sequence[str],
    edges: Edges | None,
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
    edges: Sequence[Edges] | None,
    check: CardinalityCheck,
) -> list[Node]:
    """The tree of every model of ``training`` (one for a fit; one per fold for
    cross-validation, each on the rows outside its fold), grown level by level until no node
    is open, every model's level counted by the same statements: a node is open when it is
    impure, holds at least twice ``min_leaf`` rows of positive weight and at least
    ``min_samples_split``, and is above ``max_depth``; an open node whose best candidate gains
    nothing becomes a leaf. ``edges``:
    each model's bin edges (None: no bins). The high-cardinality ``check`` is made on the
    roots' counts, before the second level. A root's rows are known once counted: it is
    counted when its class rows (zero weights included) could open it."""
    n_models = training.n_models
    k = len(training.classes[0])
    roots = [
        Node(0, 0, [float(c.n) for c in classes], rows=sum(c.n_rows for c in classes))
        for classes in training.classes
    ]
    frontier = {
        node_key(root, m, n_models): (m, root)
        for m, root in enumerate(roots)
        if _is_open(root, settings)
    }
    next_id = [1] * n_models
    grid = None if edges is None else Grid.of(edges)
    while frontier:
        level = count_level(warehouse, training, roots, set(frontier), grid)
        if not check.made:
            check(level.cardinalities({node_key(r, m, n_models) for m, r in enumerate(roots)}))
        scored = tree_splits.score_level(
            level.counts, settings.criterion, settings.splits, settings.min_leaf
        )
        chosen = tree_splits.choose_level(scored, settings.criterion)
        opened: dict[int, tuple[int, Node]] = {}
        for key, (m, node) in sorted(frontier.items()):
            node.counts = [float(x) for x in level.totals.get(key, [0] * k)]
            node.rows = level.rows.get(key, 0)
            split = chosen.get(key)
            if split is None or not _is_open(node, settings):
                continue
            order = level.values_of(key, split.attribute)
            node.split = make_split(
                split, order, None if edges is None else edges[m], settings.criterion
            )
            for part, rows in zip(split.parts, split.rows, strict=True):
                child = Node(next_id[m], node.depth + 1, [float(x) for x in part], rows=int(rows))
                next_id[m] += 1
                node.children.append(child)
                if _is_open(child, settings):
                    opened[node_key(child, m, n_models)] = (m, child)
        frontier = opened
    return roots


def _is_open(node: Node, settings: Settings) -> bool:
    deep = settings.max_depth is not None and node.depth >= settings.max_depth
    impure = sum(1 for c in node.counts if c > 0) >= 2
    assert node.rows is not None
    return (
        not deep and impure and node.rows >= max(2 * settings.min_leaf, settings.min_samples_split)
    )
