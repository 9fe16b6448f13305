"""Chow-Liu trees: the maximum-mutual-information spanning tree of a table's columns
(:func:`chow_liu_tree`), and the tree step TAN shares with it (:func:`parents_from_weights`).
MI and CMI come from SQL (stats/pairs.py); the spanning tree is stats/spanning_tree.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml import charts
from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import ColumnError, HighCardinalityWarning, warn_user
from warehouse_ml.models.inspection.render import render_tree
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats import binning, counting, pairs, spanning_tree
from warehouse_ml.stats.features import (
    CATEGORICAL,
    NUMERIC,
    Feature,
    is_categorical_type,
    is_numeric_type,
)

ROUND_DIGITS = 12


def parents_from_weights(
    attributes: Sequence[str], weights: Any, root: str | None
) -> dict[str, str | None]:
    """Each attribute's parent in the maximum-weight spanning tree of ``weights`` (a d x d
    matrix, bits) rooted at ``root`` (None: the first attribute); the root's parent is None.
    Weights are rounded to ``ROUND_DIGITS`` digits first, so trees agree across engines whose
    sums differ in the last bits."""
    index = None if root is None else list(attributes).index(root)
    parents = spanning_tree.tan_parents(weights.round(ROUND_DIGITS), index)
    return {
        a: (attributes[p] if p >= 0 else None) for a, p in zip(attributes, parents, strict=True)
    }


@dataclass(frozen=True)
class TreeEdge:
    """One edge of a Chow-Liu tree: ``parent`` is the endpoint nearer the root; ``mi`` is
    MI(parent; child) in bits."""

    parent: str
    child: str
    mi: float


@dataclass(frozen=True)
class ChowLiuTree:
    """The maximum-mutual-information spanning tree of a table's columns (Chow & Liu 1968).

    Attributes:
        attributes: the columns, in the order given.
        root: the column at the root (the first column unless chosen).
        edges: d - 1 edges, one per non-root column, in column order of the child.
        mi: MI in bits of every column pair ``(a, b)``, a before b in column order.
    """

    attributes: tuple[str, ...]
    root: str
    edges: tuple[TreeEdge, ...]
    mi: dict[tuple[str, str], float]

    @property
    def undirected_edges(self) -> set[frozenset[str]]:
        """The tree's edges as unordered pairs of column names."""
        return {frozenset((e.parent, e.child)) for e in self.edges}

    def to_arrow(self) -> pa.Table:
        """Edges as an Arrow table: parent (string), child (string), mi (float64, bits)."""
        return pa.table(
            {
                "parent": pa.array([e.parent for e in self.edges], pa.string()),
                "child": pa.array([e.child for e in self.edges], pa.string()),
                "mi": pa.array([e.mi for e in self.edges], pa.float64()),
            }
        )

    def plot(self, ax: Any = None) -> Any:
        """The tree as a picture (matplotlib, ``warehouse-ml[report]``), edges labelled with
        their MI in bits; returns the axes (a new figure's when ``ax`` is None)."""
        ax = charts.axes_or_new(ax, (8.0, 5.0))
        parents: dict[str, str | None] = {self.root: None}
        parents.update({e.child: e.parent for e in self.edges})
        charts.tree(ax, parents, {e.child: e.mi for e in self.edges}, None)
        ax.set_title("Chow-Liu tree (edge: MI, bits)")
        return ax

    def to_text(self, format: str = "mermaid") -> str:
        """Mermaid or DOT rendering (see :func:`render_tree`)."""
        edges = [(e.parent, e.child, e.mi) for e in self.edges]
        return render_tree(None, self.attributes, edges, format)


def _column_feature(source: Source, name: str) -> Feature:
    t = source.field(name).type
    if is_numeric_type(t):
        return Feature(name, NUMERIC, str(t))
    if is_categorical_type(t):
        return Feature(name, CATEGORICAL, str(t))
    raise ColumnError(
        f"column {name!r} of {source.description} has type {t}; expected a string, integer, "
        "boolean, enum, date/time or floating/decimal column"
    )


def _columns(src: Source, columns: Sequence[str] | None, keys: Sequence[str]) -> list[str]:
    """The columns to relate: ``columns``, or every column of ``src`` but the ``keys``."""
    for key in keys:
        if key not in src.columns:
            raise ColumnError(f"key {key!r} is not a column of {src.description}")
    if columns is None:
        return [name for name in src.columns if name not in keys]
    for name in columns:
        if name in keys:
            raise ColumnError(
                f"column {name!r} of {src.description} is one of the keys {list(keys)}; "
                "expected attribute columns only"
            )
    return list(columns)


def _warn_on_row_identifiers(src: Source, features: Sequence[Feature], counts: pa.Table) -> None:
    """A :class:`HighCardinalityWarning` for each categorical column with a different value on
    every row (it looks like a key: its MI with any column is that column's whole entropy, so
    the tree would hang from it). ``counts``: rows (attribute, value, n) of the column values."""
    values: dict[str, int] = {}
    rows: dict[str, int] = {}
    for row in counts.to_pylist():
        values[row["attribute"]] = values.get(row["attribute"], 0) + 1
        rows[row["attribute"]] = rows.get(row["attribute"], 0) + row["n"]
    for feature in features:
        n = rows.get(feature.name, 0)
        if feature.kind == CATEGORICAL and n > 1 and values[feature.name] == n:
            warn_user(
                f"column {feature.name!r} of {src.description} has a different value on each of "
                f"its {n} rows, like a key; leave it out with keys=[{feature.name!r}]",
                HighCardinalityWarning,
            )


def chow_liu_tree(
    con: Connectable,
    source: SourceLike,
    columns: Sequence[str] | None = None,
    root: str | None = None,
    *,
    keys: Sequence[str] = (),
    bins: int = binning.DEFAULT_BINS,
) -> ChowLiuTree:
    """The undirected maximum-MI spanning tree of a table's columns, with edge weights.

    Pair counts and MI(Ai; Aj) (bits) are computed in SQL in one statement (no table is
    written); numeric columns are cut into ``bins`` equal-frequency bins first. Rows where
    either column of a pair is NULL are left out of that pair. Ties are broken by column order.

    Args:
        con: a DuckDB connection, a database path, or a Warehouse.
        source: table/view name, Arrow table or reader, or Parquet/CSV path.
        columns: the columns to relate (at least two); None means every column but ``keys``.
        root: the column to direct the tree from; None = the first column.
        keys: identifier columns, left out (a categorical column with a different value on
            every row draws a :class:`HighCardinalityWarning` naming it).
        bins: equal-frequency bins per numeric column.

    Returns:
        a :class:`ChowLiuTree` (edges oriented away from ``root``, MI in bits).
    """
    binning.check_bins(bins)
    with session(con) as warehouse, open_source(warehouse, source) as src:
        names = _columns(src, columns, keys)
        if len(names) < 2 or len(set(names)) != len(names):
            raise ColumnError(f"expected at least two distinct columns, got {names}")
        if root is not None and root not in names:
            raise ColumnError(f"root {root!r} is not one of the columns {names}")
        features = [_column_feature(src, n) for n in names]
        numeric = [f.name for f in features if f.kind == NUMERIC]
        constant = "wml_constant_class"
        base = exp.select(alias(literal(0), constant), exp.Star()).from_(
            src.relation.copy().as_("src0")
        )
        edges: dict[str, list[float]] = {}
        if numeric:
            edges = binning.fetch_edges(warehouse, base, constant, numeric, bins)
        relation = exp.select(
            alias(column(constant, "src"), constant),
            *[
                alias(binning.value_expression(f, column(f.name, "src"), edges), f.name)
                for f in features
            ],
        ).from_(base.subquery("src"))
        singles = warehouse.fetch_tree(counting.categorical_counts(relation, constant, names))
        _warn_on_row_identifiers(src, features, singles)
        cardinality = {n: 0 for n in names}
        for row in singles.to_pylist():
            cardinality[row["attribute"]] += 1
        blocks = pairs.plan_pair_blocks([cardinality[n] for n in names], n_classes=1)
        counts = templates.build(
            "label_pair_counts", counts=pairs.pair_counts_query(relation, constant, names, blocks)
        )
        rows = warehouse.fetch_tree(pairs.information_query(counts))
    weights = pairs.information_matrix(rows, names, "mi")
    parents = parents_from_weights(names, weights, root)
    mi = {
        (names[i], names[j]): float(weights[i, j])
        for i in range(len(names))
        for j in range(i + 1, len(names))
    }
    index = {n: i for i, n in enumerate(names)}
    tree = tuple(
        TreeEdge(p, c, float(weights[index[p], index[c]]))
        for c, p in parents.items()
        if p is not None
    )
    return ChowLiuTree(tuple(names), next(n for n in names if parents[n] is None), tree, mi)
