"""Which stored rows tied at a scored row's k-th distance are among its neighbours: the tie rule
of k nearest neighbours, in each of the searches of models/learners/neighbors/search.py.

* ``ties="key"`` (:class:`ByKey`, the default): exactly k neighbours, the stored rows in
  ascending order of the reduced distance, then of the key ``neighbour`` (the stored row's
  rank in the order of its stored values, the same on every engine and in every fold), the k
  first. As scikit-learn's brute search, which also keeps k, though its order among equal
  distances is its own.
* ``ties="all"`` (:class:`Every`): every stored row at a distance <= the k-th smallest, k or
  more, as Weka's IBk (``LinearNNSearch.kNearestNeighbours`` keeps each stored row tied with
  the k-th, and all of them vote). On data of few distinct distances (all-nominal attributes,
  whose distance counts the attributes that differ) most rows tie at their k-th distance, and
  an arbitrary k of them is a worse vote than all of them. A neighbour's rank is then the
  competition rank, 1 + the number of stored rows strictly nearer (tied rows share it): the
  rows of rank <= k are those within the k-th distance, for every k.

A rule answers for each search: the rank of a scored row's pairs (the portable window and the
ranked searches keep ranks <= k), the voters of a correlated lateral subquery (PostgreSQL), and
which of the pairs within the k-th distance vote for a row whose k-th and (k + 1)-th distances
tie (DuckDB's one-pass view).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

from sqlglot import exp

from warehouse_ml.errors import ParameterError
from warehouse_ml.models.learners.neighbors.columns import (
    CLASS_INDEX,
    NEAREST,
    NEIGHBOUR,
    REDUCED,
)
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal

KEY, ALL = "key", "all"
TIES = (KEY, ALL)


class TieRule(abc.ABC):
    """A tie rule (module docstring)."""

    @abc.abstractmethod
    def rank(self, row: exp.Expression) -> exp.Window:
        """The rank (1 the nearest) of each pair among those of its scored row ``row``: a
        pair is a neighbour when its rank is <= k."""

    @abc.abstractmethod
    def nearest(self, distances: exp.Select, k: int) -> exp.Query:
        """The neighbours among ``distances`` (the stored rows with their neighbour,
        class_index and wml_reduced to one scored row), in any order."""

    @abc.abstractmethod
    def tied(self, within: exp.Subquery, grouped: Sequence[str], k: int) -> exp.Query:
        """The neighbours among ``within`` (the pairs of scored rows tied across their k-th
        distance within it: the ``grouped`` columns identifying the row, neighbour,
        class_index, wml_reduced): the grouped columns, wml_reduced, class_index."""


class ByKey(TieRule):
    """``ties="key"``: k neighbours, ties to the smaller key (module docstring)."""

    def rank(self, row: exp.Expression) -> exp.Window:
        order = exp.Order(
            expressions=[exp.Ordered(this=column(REDUCED)), exp.Ordered(this=column(NEIGHBOUR))]
        )
        return exp.Window(this=exp.RowNumber(), partition_by=[row], order=order)

    def nearest(self, distances: exp.Select, k: int) -> exp.Query:
        """``ORDER BY wml_reduced, neighbour LIMIT k`` (PostgreSQL: a bounded sort)."""
        return distances.order_by(column(REDUCED), column(NEIGHBOUR), copy=False).limit(
            literal(k), copy=False
        )

    def tied(self, within: exp.Subquery, grouped: Sequence[str], k: int) -> exp.Query:
        """The k first by ``MIN({wml_reduced, neighbour, class_index}, k)`` (DuckDB's top-k
        aggregate), whose structs order as the rule does."""
        pair = exp.Struct(
            expressions=[
                exp.PropertyEQ(this=exp.to_identifier(name), expression=column(name, "w"))
                for name in (REDUCED, NEIGHBOUR, CLASS_INDEX)
            ]
        )
        heaps = (
            exp.select(
                *(alias(column(g, "w"), g) for g in grouped),
                alias(exp.Min(this=pair, count=literal(k)), NEAREST),
            )
            .from_(within)
            .group_by(*(column(g, "w") for g in grouped))
        )
        broken = templates.build(
            "select_knn_unnested", grouped=[column(g, "u") for g in grouped], heaps=heaps
        )
        assert isinstance(broken, exp.Query)
        return exp.select(*(column(n, "b") for n in [*grouped, REDUCED, CLASS_INDEX])).from_(
            broken.subquery("b")
        )


class Every(TieRule):
    """``ties="all"``: every stored row within the k-th distance (module docstring)."""

    def rank(self, row: exp.Expression) -> exp.Window:
        order = exp.Order(expressions=[exp.Ordered(this=column(REDUCED))])
        return exp.Window(this=exp.Rank(), partition_by=[row], order=order)

    def nearest(self, distances: exp.Select, k: int) -> exp.Query:
        """The rows within the largest of the k smallest reduced distances, ``ORDER BY
        wml_reduced LIMIT k`` (PostgreSQL: a bounded sort, then a scan within the bound)."""
        smallest = distances.copy().order_by(column(REDUCED), copy=False)
        bound = exp.select(alias(exp.Max(this=column(REDUCED, "b")), REDUCED)).from_(
            smallest.limit(literal(k), copy=False).subquery("b")
        )
        return (
            exp.select(exp.Star())
            .from_(distances.subquery("a"))
            .where(exp.LTE(this=column(REDUCED, "a"), expression=bound.subquery()))
        )

    def tied(self, within: exp.Subquery, grouped: Sequence[str], k: int) -> exp.Query:
        """Every pair within the k-th distance."""
        return exp.select(*(column(n, "w") for n in [*grouped, REDUCED, CLASS_INDEX])).from_(within)


def tie_rule(ties: str) -> TieRule:
    """The tie rule named ``ties`` (module docstring); a ParameterError for another name."""
    rules: dict[str, type[TieRule]] = {KEY: ByKey, ALL: Every}
    if ties not in rules:
        raise ParameterError(f"ties must be one of {', '.join(TIES)}; got {ties!r}")
    return rules[ties]()
