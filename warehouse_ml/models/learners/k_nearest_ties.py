"""Which stored rows tied at a scored row's k-th distance are among its neighbours: the tie rule
of k nearest neighbours, in each of the searches of models/learners/k_nearest_search.py.

* ``ties="key"`` (:class:`ByKey`, the default): exactly k neighbours, the stored rows in
  ascending order of the reduced distance, then of the key ``neighbour`` (the stored row's
  rank in the order of its stored values, the same on every engine and in every fold), the k
  first. As scikit-learn's brute search, which also keeps k, though its order among equal
  distances is its own.

A rule answers for each search: the rank of a scored row's pairs (the portable window and the
ranked searches keep ranks <= k), the voters of a correlated lateral subquery (PostgreSQL), and
which of the pairs within the k-th distance vote for a row whose k-th and (k + 1)-th distances
tie (DuckDB's one-pass view).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence

from sqlglot import exp

from warehouse_ml.models.learners.k_nearest_search import (
    CLASS_INDEX,
    NEAREST,
    NEIGHBOUR,
    REDUCED,
)
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal


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
