"""Exact k nearest neighbours in SQL: the stored training rows, each scored row's distance to
every one of them, its k nearest, and their votes.

Coordinates: each feature of a model is one column ``x_<i>`` (its position among the
features) of both the stored rows and the scored ones, as the linear families' design gives
it (models/learners/linear_design.py ``Design.values``): a numeric attribute's standardised
value (NULL: 0, the training mean), a categorical attribute's level number (-1 for NULL or
unseen). The squared distance of two rows is the sum over the numeric attributes of their
squared differences plus, per categorical attribute, the overlap distance: 0 for the same level,
1 otherwise (two NULLs are the same value), added in a fixed order (steps.balanced_sum).

Ranking (the tie rule): a scored row's neighbours are the stored rows in ascending order of the
squared distance, then of the stored row's key ``neighbour``; the k first are its neighbours.
The key is each stored row's rank in the order of its stored values (x_0, x_1, ..., then its
class index): a function of the training rows alone, so the same on every engine and in a
cross-validation's folds; two stored rows equal in that order are the same row for k-NN.

Two searches give the same rows: :class:`WindowSearch`, portable (``ROW_NUMBER() OVER
(PARTITION BY scored row ORDER BY squared distance, key)`` over every pair, kept while <= k),
and :class:`BoundedSearch`, for an engine with a top-k aggregate (DuckDB's ``MIN(value, k)``),
which bounds each row's k-th distance first and sorts only the pairs within it; the adapter's
``TOP_K_AGGREGATE`` chooses.

Votes (:func:`votes`): uniform weights count each neighbour once; ``weights="distance"`` counts
1 / distance, except that a row with neighbours at distance 0 counts those alone, 1 each (as
scikit-learn). The scoring query renormalises the votes into probabilities.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from warehouse_ml.models.scoring.decision import score_column
from warehouse_ml.models.scoring.steps import balanced_sum
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import NUMERIC, Feature

NEIGHBOUR = "neighbour"
"""A stored row's key (BIGINT, 1-based): its rank in the order of its stored values."""
CLASS_INDEX = "class_index"
SQUARED = "wml_d2"
"""A pair's squared distance (DOUBLE)."""
RANK = "wml_rank"
"""A neighbour's rank among a scored row's neighbours (1 the nearest)."""
UNIFORM, DISTANCE = "uniform", "distance"
WEIGHTS = (UNIFORM, DISTANCE)


def coordinate(i: int) -> str:
    """The column of feature ``i``'s coordinate, stored and scored alike."""
    return f"x_{i}"


def squared_distance(features: Sequence[Feature], scored: str, stored: str) -> exp.Expression:
    """The squared distance between the coordinates of the rows aliased ``scored`` and
    ``stored`` (module docstring; 0 without features)."""
    terms = [
        templates.expression(
            "knn_squared_difference" if f.kind == NUMERIC else "knn_overlap",
            scored=column(coordinate(i), scored),
            stored=column(coordinate(i), stored),
        )
        for i, f in enumerate(features)
    ]
    return balanced_sum(terms) if terms else literal(0.0)


class Search(abc.ABC):
    """How the k nearest of each scored row are found (module docstring)."""

    @abc.abstractmethod
    def ranked(
        self, neighbours: Neighbours, scored: exp.Query, grouped: Sequence[str]
    ) -> exp.Query:
        """The ``neighbours.k`` nearest stored rows of each row of ``scored``
        (:meth:`Neighbours.pairs`): the grouped columns, neighbour, class_index, wml_d2 and
        wml_rank (1..k)."""


def _numbered_within(paired: exp.Query, grouped: Sequence[str], k: int) -> exp.Select:
    """The pairs of ``paired`` ranked per scored row by (squared distance, key), kept while
    the rank is <= k."""
    order = exp.Order(
        expressions=[exp.Ordered(this=column(SQUARED)), exp.Ordered(this=column(NEIGHBOUR))]
    )
    window = exp.Window(this=exp.RowNumber(), partition_by=[column(grouped[0])], order=order)
    numbered = exp.select(exp.Star(), alias(window, RANK)).from_(paired.subquery("p"))
    return (
        exp.select(exp.Star())
        .from_(numbered.subquery("r"))
        .where(exp.LTE(this=column(RANK, "r"), expression=literal(k)))
    )


class WindowSearch(Search):
    """Portable: a ROW_NUMBER window per scored row over every pair, kept while <= k."""

    def ranked(
        self, neighbours: Neighbours, scored: exp.Query, grouped: Sequence[str]
    ) -> exp.Query:
        return _numbered_within(neighbours.pairs(scored, grouped), grouped, neighbours.k)


SCORED = "wml_knn_scored"
BOUND = "wml_bound"


class BoundedSearch(Search):
    """DuckDB's top-k aggregate in two passes over the pairs: the first keeps each scored
    row's k smallest squared distances (``MIN(wml_d2, k)``, a heap of k doubles per row; an
    aggregate ordering by the pair (distance, key) costs about three times as much), whose
    largest is the row's bound; the second keeps the pairs within the bound (the k nearest
    and any stored row tied with the k-th) and ranks those few by the window. The same rows
    and ranks as :class:`WindowSearch`; the scored rows are materialised once (their number
    is read by both passes)."""

    def ranked(
        self, neighbours: Neighbours, scored: exp.Query, grouped: Sequence[str]
    ) -> exp.Query:
        first = grouped[0]
        rows = exp.select(exp.Star()).from_(exp.to_table(SCORED))
        smallest = exp.Min(this=column(SQUARED, "p"), count=literal(neighbours.k))
        bounds = (
            exp.select(alias(column(first, "p"), first), alias(exp.ArrayMax(this=smallest), BOUND))
            .from_(neighbours.pairs(rows, [first]).subquery("p"))
            .group_by(column(first, "p"))
        )
        bounded = (
            exp.select(exp.Star(), alias(column(BOUND, "b"), BOUND))
            .from_(exp.to_table(SCORED).as_("s"))
            .join(
                bounds.subquery("b"),
                on=exp.EQ(this=column(first, "s"), expression=column(first, "b")),
            )
        )
        within = (
            exp.select(exp.Star())
            .from_(neighbours.pairs(bounded, [*grouped, BOUND]).subquery("w"))
            .where(exp.LTE(this=column(SQUARED, "w"), expression=column(BOUND, "w")))
        )
        ranked = _numbered_within(within, grouped, neighbours.k)
        return ranked.with_(SCORED, as_=scored, materialized=True)


def search_for(top_k_aggregate: bool) -> Search:
    """The search an engine runs: the bounded one when its adapter has a top-k aggregate."""
    return BoundedSearch() if top_k_aggregate else WindowSearch()


def votes(
    ranked: exp.Query, grouped: Sequence[str], kept: Sequence[str], n_classes: int, weights: str
) -> exp.Select:
    """Each scored row's votes from its ranked neighbours (module docstring): the ``kept``
    columns (among the ``grouped`` ones, by which the rows are grouped), then ``wml_j_<c>``
    per class (DOUBLE >= 0)."""
    squared = column(SQUARED, "r")

    def summed(weight: exp.Expression, c: int) -> exp.Expression:
        vote = templates.expression(
            "knn_vote", class_index=column(CLASS_INDEX, "r"), k=literal(c), weight=weight
        )
        return exp.Sum(this=vote)

    scores = []
    for c in range(n_classes):
        if weights == UNIFORM:
            score = summed(literal(1.0), c)
        else:
            exact = summed(templates.expression("knn_exact_match", squared=squared), c)
            inverse = summed(templates.expression("knn_inverse_distance", squared=squared), c)
            any_exact = exp.EQ(this=exp.Min(this=squared.copy()), expression=literal(0.0))
            score = exp.case().when(any_exact, exact).else_(inverse)
        scores.append(alias(score, score_column(c)))
    return (
        exp.select(*(alias(column(g, "r"), g) for g in kept), *scores)
        .from_(ranked.subquery("r"))
        .group_by(*(column(g, "r") for g in grouped))
    )


@dataclass(frozen=True)
class Neighbours:
    """The k-nearest-neighbour search of one model (or of every fold's, joined ``on`` a
    condition between a scored row ``q`` and a stored row ``t``): its ``features``
    (coordinate order), its stored rows (a query of neighbour, class_index and the
    coordinates), ``k`` and the engine's :class:`Search`."""

    features: Sequence[Feature]
    stored: exp.Query
    k: int
    search: Search
    on: exp.Expression | None = None

    def pairs(self, scored: exp.Query, grouped: Sequence[str]) -> exp.Select:
        """Every (scored row, stored row) pair: ``scored`` (its ``grouped`` columns, which
        identify a row, the first alone, and its coordinates) AS q joined to the stored rows
        AS t on :attr:`on`, or crossed. Columns: the grouped ones, neighbour, class_index,
        wml_d2."""
        query = exp.select(
            *(alias(column(g, "q"), g) for g in grouped),
            alias(column(NEIGHBOUR, "t"), NEIGHBOUR),
            alias(column(CLASS_INDEX, "t"), CLASS_INDEX),
            alias(squared_distance(self.features, "q", "t"), SQUARED),
        ).from_(scored.subquery("q"))
        stored = self.stored.subquery("t")
        if self.on is None:
            return query.join(stored, join_type="CROSS", copy=False)
        return query.join(stored, on=self.on, copy=False)

    def ranked(self, scored: exp.Query, grouped: Sequence[str]) -> exp.Query:
        """The k nearest stored rows of each row of ``scored`` (its ``grouped`` columns, the
        first a row number, and its coordinates): grouped columns, neighbour, class_index,
        wml_d2, wml_rank."""
        return self.search.ranked(self, scored, grouped)
