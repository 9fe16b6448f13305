"""Equal-frequency discretisation of numeric attributes, for models that need discrete values.

Edges are learned in SQL (``select_bin_tiles.sql``: the largest value of each of ``bins``
NTILE tiles of the non-NULL training values; ``create_bins.sql`` keeps the distinct ones), stored
with the model, and turned into a plain ``CASE`` expression that maps a value to its bin index:
bin i holds ``edge[i-1] < x <= edge[i]``, values above the last edge fall in the last bin, NULL
stays NULL. The same expression is used when counting and when scoring, so training and scoring
bins are identical. Bin indexes are compared as text (``'0'``, ``'1'``, ...) like any
categorical value.

A numeric attribute's *training histogram* (:func:`histogram_counts`) is its rows per (bin,
class) on such edges: what Naive Bayes stores next to its Gaussians, so that drift and its
attribute ranking measure the data's own distribution (models/living/drift.py,
models/inspection/relevance.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.errors import DataError, ParameterError
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column, literal
from warehouse_ml.stats import counting
from warehouse_ml.stats.features import NUMERIC, Feature, valued_source
from warehouse_ml.stats.features import value_expression as categorical_value

DEFAULT_BINS = 5
"""Equal-frequency bins of a numeric column: TAN's default, ``rank_attributes``' and
``top:k``'s, and a Naive Bayes model's training histogram."""


def check_bins(bins: Any) -> int:
    """Validate a bin count: an integer >= 1."""
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ParameterError(f"bins must be an integer >= 1, got {bins!r}")
    return bins


def tiles_query(
    source: exp.Table | exp.Query, target: str, attributes: Sequence[str], bins: int
) -> exp.Query:
    """Query of (attribute, tile, upper) for every numeric attribute: one NTILE per attribute."""
    return templates.union_all(
        templates.build(
            "select_bin_tiles",
            source=source,
            target=target,
            column=attribute,
            attribute=attribute,
            bins=bins,
        )
        for attribute in attributes
    )


def learn_edges(
    warehouse: Warehouse,
    source: exp.Table,
    target: str,
    attributes: Sequence[str],
    bins: int,
    table: TableName,
    description: str = "the source",
) -> dict[str, list[float]]:
    """Create the bin table ``table`` (attribute, bin_index, upper) and return its edges
    (:func:`fetch_edges`, then :func:`store_edges`).

    ``description`` names the source in the error raised for a non-finite value.

    Returns:
        attribute -> ascending distinct upper edges (floats); an attribute whose training
        values are all NULL has no edges (its bin is always NULL).
    """
    edges = fetch_edges(warehouse, source, target, attributes, bins, description)
    store_edges(warehouse, table, edges)
    return edges


def store_edges(
    warehouse: Warehouse, table: TableName, edges: Mapping[str, Sequence[float]]
) -> None:
    """Create the bin table ``table`` of :func:`learn_edges` from edges learned before (an
    update keeps its model's bins)."""
    rows = [(a, i, float(e)) for a, upper in edges.items() for i, e in enumerate(upper)]
    tiles = exp.select("*").from_(
        templates.values(rows or [("", 0, 0.0)], "t", ("attribute", "tile", "upper"))
    )
    warehouse.run("create_bins", table=table, tiles=tiles if rows else tiles.where(exp.false()))


def fetch_edges(
    warehouse: Warehouse,
    source: exp.Table | exp.Query,
    target: str,
    attributes: Sequence[str],
    bins: int,
    description: str = "the source",
) -> dict[str, list[float]]:
    """Each attribute's ascending distinct upper edges of its ``bins`` equal-frequency tiles
    (one statement, select_bin_tiles.sql); a DataError naming the attribute and
    ``description`` when a tile holds NaN or an infinity (a fit refuses them)."""
    rows = warehouse.fetch_tree(tiles_query(source, target, attributes, bins)).to_pylist()
    edges: dict[str, set[float]] = {a: set() for a in attributes}
    for row in rows:
        finite_edge(row["attribute"], row["lower"], description)
        edges[row["attribute"]].add(finite_edge(row["attribute"], row["upper"], description))
    return {a: sorted(v) for a, v in edges.items()}


def finite_edge(attribute: str, value: Any, description: str) -> float:
    """A bin's edge (or lowest value) ``value`` of ``attribute`` as a float; a DataError naming
    the attribute and the source ``description`` when it is NaN or infinite, which a fit
    refuses."""
    number = float(value)
    if not math.isfinite(number):
        raise DataError(
            f"numeric column {attribute!r} of {description} has non-finite values (found "
            f"{number} in its bins); expected finite numbers (filter them out, or map "
            "them to NULL, in a view; or declare the column categorical)"
        )
    return number


def bin_expression(value: exp.Expression, edges: Sequence[float]) -> exp.Expression:
    """``CASE WHEN x IS NULL THEN NULL WHEN x <= e0 THEN 0 ... ELSE last END`` (INTEGER).

    >>> from warehouse_ml.sqlgen.templates import column, generate
    >>> generate(bin_expression(column("x"), [1.0, 2.5]))
    'CASE WHEN "x" IS NULL THEN NULL WHEN "x" <= CAST(1.0 AS DOUBLE) THEN 0 ELSE 1 END'
    """
    if not edges:
        return exp.cast(exp.null(), exp.DataType.Type.INT)
    case = exp.case().when(exp.Is(this=value.copy(), expression=exp.null()), exp.null())
    for i, edge in enumerate(edges[:-1]):
        case = case.when(exp.LTE(this=value.copy(), expression=literal(float(edge))), literal(i))
    return case.else_(literal(len(edges) - 1))


def value_expression(
    feature: Feature, value: exp.Expression, edges: Mapping[str, Sequence[float]]
) -> exp.Expression:
    """The discrete value of a feature: its bin index if numeric, else its categorical value
    (features.value_expression: the column itself, or a timestamp's UTC time)."""
    if feature.kind == NUMERIC:
        return bin_expression(value, edges[feature.name])
    return categorical_value(feature, value)


def discretised_source(
    source: exp.Table,
    carried: Sequence[str],
    features: Sequence[Feature],
    edges: Mapping[str, Sequence[float]],
) -> exp.Table | exp.Query:
    """The source with each feature replaced by its discrete value (:func:`value_expression`,
    same column name): a numeric feature by its bin index.

    Returns ``source`` itself when every value is its column (no numeric feature, no timestamp
    with a time zone); otherwise a query with the ``carried`` columns (the target, a fold
    column) and the features.
    """
    return valued_source(
        source,
        carried,
        features,
        lambda feature, value: value_expression(feature, value, edges),
    )


def histogram_counts(
    source: exp.Table | exp.Query,
    target: str,
    edges: Mapping[str, Sequence[float]],
    partition: str | None = None,
    weight: str | None = None,
) -> exp.Query:
    """The training histogram of the numeric attributes ``edges`` names: counting.py's
    categorical counts (one statement over blocks of attributes) of each attribute's bin
    index on its ``edges``, computed per block from the source row (no discretised copy of
    every column per block).

    Output columns: wml_part, attribute (VARCHAR), value (VARCHAR bin index ``'0'``,
    ``'1'``, ...), class_label (VARCHAR), n (rows; with ``weight``, their summed weights),
    per ``partition`` as counting.categorical_counts has them; empty bins have no row.
    """
    names = list(edges)
    values = {a: bin_expression(column(a, "src"), edges[a]) for a in names}
    return counting.categorical_counts(
        source, target, names, partition=partition, weight=weight, values=values
    )
