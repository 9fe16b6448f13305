"""Exact k nearest neighbours in SQL: the stored training rows, each scored row's distance to
every one of them, its k nearest, and their votes.

Coordinates: each feature of a model is one column ``x_<i>`` (its position among the
features) of both the stored rows and the scored ones, as the linear families' design gives
it (models/learners/shared/design.py ``Design.values``): a numeric attribute's standardised
value (NULL: 0, the training mean), a categorical attribute's level number (-1 for NULL or
unseen). The distance of two rows is the model's metric over them
(models/learners/neighbors/metrics.py: Euclidean, Manhattan, Minkowski or cosine), and the
searches rank by its reduced distance ``wml_reduced`` (the squared distance for the
Euclidean), one expression, the same in every search and pass.

Ranking: a scored row's neighbours are the stored rows in ascending order of the reduced
distance, the k first; the model's tie rule (models/learners/neighbors/ties.py) says which of
those tied at the k-th distance are (by the stored row's key ``neighbour``). The key is each
stored row's rank in the order of its stored values (x_0, x_1, ..., then its class index): a
function of the training rows alone, so the same on every engine and in a cross-validation's
folds; two stored rows equal in that order are the same row for k-NN.

Three searches give the same rows, each answering ``ranked`` (one row per neighbour, for
explanations and select_k's folds) and ``voted`` (one row per scored row, for scores and
prediction views):

* :class:`WindowSearch`, portable: the tie rule's rank over every pair of a scored row
  (``ROW_NUMBER() OVER (PARTITION BY scored row ORDER BY reduced distance, key)`` for
  ``ties="key"``), kept while <= k (the scored rows numbered to group their neighbours; SQL
  exported for another engine, and Spark, whose decorrelated LATERAL searches for every
  distinct scored row whatever the filter on it);
* :class:`LateralSearch`, where the adapter declares ``LATERAL_TOP_K`` (PostgreSQL): each
  scored row's neighbours by a correlated ``LATERAL`` subquery (``ORDER BY wml_reduced,
  neighbour LIMIT k`` for ``ties="key"``), its votes aggregated inside, no window;
* :class:`BoundedSearch`, where the adapter declares ``TOP_K_AGGREGATE`` (DuckDB): each row's
  k-th distance bounded by ``MIN(wml_reduced, k)`` first and only the pairs within it ranked; its
  votes group the scored rows by their columns, so a filter on the view's key reaches the
  source before the search, and read the stored rows once (a second pass only for rows with a
  tie across their k-th neighbour).

Votes (:class:`Votes`): uniform weights count each neighbour once; ``weights="distance"`` counts
1 / distance, except that a row with neighbours at distance 0 counts those alone, 1 each (as
scikit-learn). The scoring query renormalises the votes into probabilities.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.neighbors.columns import (
    CLASS_INDEX,
    NEIGHBOUR,
    RANK,
    REDUCED,
    ROW_ID,
    coordinate,
)
from warehouse_ml.models.scoring.decision import score_column
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import Feature

if TYPE_CHECKING:
    from warehouse_ml.models.learners.neighbors.metrics import Metric
    from warehouse_ml.models.learners.neighbors.ties import TieRule

HEAPS, SMALLEST, CLASSES = "wml_heaps", "wml_smallest", "wml_classes"
"""A prediction view's one pass of top-k aggregates (:class:`BoundedSearch`): per scored row,
its k + 1 smallest reduced distances and the classes of its k nearest."""
UNIFORM, DISTANCE = "uniform", "distance"


def exact_text(kept: str) -> str:
    """The column holding the text of the kept column ``kept``, by which
    :class:`BoundedSearch` tells apart values its grouping would take for one: a float's 0.0
    and -0.0 (equal numbers, two rows each with its own key)."""
    return f"{kept}_text"


class Search(abc.ABC):
    """How the k nearest of each scored row are found (module docstring)."""

    @abc.abstractmethod
    def ranked(
        self, neighbours: Neighbours, scored: exp.Query, grouped: Sequence[str]
    ) -> exp.Query:
        """The neighbours of each row of ``scored`` (:meth:`Neighbours.pairs`) by the tie
        rule: the grouped columns, neighbour, class_index, wml_reduced and wml_rank (1..k)."""

    def voted(
        self,
        neighbours: Neighbours,
        scored: exp.Query,
        kept: Sequence[str],
        votes: Votes,
        numbered: str | None = None,
    ) -> exp.Query:
        """One row per row of ``scored`` (its ``kept`` columns and its coordinates): the kept
        columns, then ``votes``' columns over its k nearest stored rows. ``numbered``: the
        kept column numbering the rows (distinct), when the caller numbered them: each row's
        neighbours (:meth:`ranked`) are grouped by it; else :meth:`unnumbered`."""
        if numbered is None:
            return self.unnumbered(neighbours, scored, kept, votes)
        grouped = [numbered, *(g for g in kept if g != numbered)]
        return votes.of(self.ranked(neighbours, scored, grouped), grouped, kept)

    @abc.abstractmethod
    def unnumbered(
        self,
        neighbours: Neighbours,
        scored: exp.Query,
        kept: Sequence[str],
        votes: Votes,
    ) -> exp.Query:
        """:meth:`voted` of rows with no number of the caller's."""


def _ranked_within(neighbours: Neighbours, paired: exp.Query, grouped: Sequence[str]) -> exp.Select:
    """The pairs of ``paired`` ranked per scored row (its first ``grouped`` column) by the
    tie rule, kept while the rank is <= k."""
    rank = neighbours.ties.rank(column(grouped[0]))
    numbered = exp.select(exp.Star(), alias(rank, RANK)).from_(paired.subquery("p"))
    return (
        exp.select(exp.Star())
        .from_(numbered.subquery("r"))
        .where(exp.LTE(this=column(RANK, "r"), expression=literal(neighbours.k)))
    )


class WindowSearch(Search):
    """Portable: a ROW_NUMBER window per scored row over every pair, kept while <= k; the
    scored rows numbered by ``ROW_NUMBER() OVER ()`` to group each row's neighbours."""

    def ranked(
        self, neighbours: Neighbours, scored: exp.Query, grouped: Sequence[str]
    ) -> exp.Query:
        return _ranked_within(neighbours, neighbours.pairs(scored, grouped), grouped)

    def unnumbered(
        self,
        neighbours: Neighbours,
        scored: exp.Query,
        kept: Sequence[str],
        votes: Votes,
    ) -> exp.Query:
        number = alias(exp.Window(this=exp.RowNumber()), ROW_ID)
        rows = exp.select(number, exp.Star()).from_(scored.subquery("n"))
        return votes.of(self.ranked(neighbours, rows, [ROW_ID, *kept]), [ROW_ID, *kept], kept)


class LateralSearch(Search):
    """Each scored row ``q``'s neighbours by a correlated ``LATERAL`` subquery over the
    stored rows, the tie rule's (ties.py ``TieRule.nearest``: ``ORDER BY wml_reduced,
    neighbour LIMIT k``, on PostgreSQL a nested loop, one scan and a bounded sort of the stored
    rows per scored row; for ``ties="all"`` a second scan within the bound), its votes
    aggregated inside it:
    one row out per scored row with no row number and no grouping, so a filter on a scored
    column reaches the scored rows before the search (a PostgreSQL prediction view's fenced
    scores step, models/scoring/query.py ``FENCED``, still takes no filter from its reader).
    The adapter's ``LATERAL_TOP_K`` chooses it."""

    def nearest(self, neighbours: Neighbours) -> exp.Query:
        """The neighbours of the scored row ``q`` (correlated) by the tie rule: neighbour,
        class_index, wml_reduced, in any order."""
        return neighbours.ties.nearest(neighbours.distances(), neighbours.k)

    def _lateral(
        self, neighbours: Neighbours, scored: exp.Query, kept: Sequence[str], inner: exp.Query
    ) -> exp.Select:
        """``scored`` AS q (its ``kept`` columns; :meth:`Neighbours.rows`) crossed with
        ``inner`` (correlated to q) AS v, every column of v."""
        lateral = exp.Lateral(
            this=inner.subquery(), alias=exp.TableAlias(this=exp.to_identifier("v"))
        )
        return (
            exp.select(
                *(alias(column(g, "q"), g) for g in kept),
                exp.Column(this=exp.Star(), table=exp.to_identifier("v")),
            )
            .from_(neighbours.rows(scored, "q"))
            .join(lateral, join_type="CROSS", copy=False)
        )

    def ranked(
        self, neighbours: Neighbours, scored: exp.Query, grouped: Sequence[str]
    ) -> exp.Query:
        paired = self._lateral(neighbours, scored, grouped, self.nearest(neighbours))
        return _ranked_within(neighbours, paired, grouped)

    def unnumbered(
        self,
        neighbours: Neighbours,
        scored: exp.Query,
        kept: Sequence[str],
        votes: Votes,
    ) -> exp.Query:
        return self._lateral(neighbours, scored, kept, votes.of(self.nearest(neighbours), [], []))


COPIES = "wml_copies"
"""How many scored rows a distinct scored row stands for (:class:`BoundedSearch`)."""
SCORED = "wml_knn_scored"
BOUND = "wml_bound"


def _bounds(neighbours: Neighbours, scored: exp.Query, grouped: Sequence[str]) -> exp.Select:
    """Each row of ``scored`` (identified by its ``grouped`` columns) with its k-th smallest
    reduced distance, ``wml_bound``, from the top-k aggregate ``MIN(wml_reduced, k)``."""
    smallest = exp.Min(this=column(REDUCED, "p"), count=literal(neighbours.k))
    return (
        exp.select(
            *(alias(column(g, "p"), g) for g in grouped),
            alias(exp.ArrayMax(this=smallest), BOUND),
        )
        .from_(neighbours.pairs(scored, grouped).subquery("p"))
        .group_by(*(column(g, "p") for g in grouped))
    )


def _within(neighbours: Neighbours, bounded: exp.Query, grouped: Sequence[str]) -> exp.Select:
    """The pairs of the rows of ``bounded`` (grouped columns, coordinates, wml_bound) within
    their bound: the k nearest and any stored row tied with the k-th."""
    return (
        exp.select(exp.Star())
        .from_(neighbours.pairs(bounded, [*grouped, BOUND]).subquery("w"))
        .where(exp.LTE(this=column(REDUCED, "w"), expression=column(BOUND, "w")))
    )


class BoundedSearch(Search):
    """DuckDB's top-k aggregates. The same rows and ranks as :class:`WindowSearch`.

    :meth:`ranked` (rows numbered by the caller) takes two passes over the pairs: the first
    keeps each scored row's k smallest reduced distances (``MIN(wml_reduced, k)``, a heap of k
    doubles per row), whose largest is the row's bound; the second keeps the pairs within the
    bound (the k nearest and any stored row tied with the k-th), joined back to the scored
    rows, materialised once, and ranks those few by the window. So does :meth:`voted` of
    numbered rows (``predict_proba``'s, numbered for their order).

    :meth:`voted` of rows with no number (a prediction view's) groups them by their columns
    instead (the distinct rows, each with the number of rows it stands for, its votes repeated
    as many times; each kept column by its text too, :func:`exact_text`, so that a key 0.0 and
    a key -0.0 stay two rows): no row number, so a filter on a scored column passes every
    step down to the source (a prediction view read by its key searches for that row alone).
    It reads the stored rows once: one pass keeps each row's k + 1 smallest reduced distances
    (``MIN(wml_reduced, k + 1)``) and the classes at its k smallest (``ARG_MIN(class_index,
    wml_reduced, k)``), both heaps of primitive values, in ascending order of distance. Where
    the k-th distance is below the (k + 1)-th, those are the k nearest whatever a tie inside
    them picked, and the votes need only their classes and distances. Where they are equal (a
    tie across the k-th neighbour, which the tie rule decides), a second pass takes the pairs
    within the k-th distance of those rows alone and keeps those the rule says
    (ties.py ``TieRule.tied``); with no such row, DuckDB stops that pass after its
    first vector (a single aggregate of structs over every pair, without the first pass, cost
    about 1.6 times as much, and scoring 10,000 rows against 100,000 stored rows took it past
    20 GB of memory). The adapter's ``TOP_K_AGGREGATE`` chooses it."""

    def ranked(
        self, neighbours: Neighbours, scored: exp.Query, grouped: Sequence[str]
    ) -> exp.Query:
        first = grouped[0]
        rows = exp.select(exp.Star()).from_(exp.to_table(SCORED))
        bounds = _bounds(neighbours, rows, [first])
        bounded = (
            exp.select(exp.Star(), alias(column(BOUND, "b"), BOUND))
            .from_(exp.to_table(SCORED).as_("s"))
            .join(
                bounds.subquery("b"),
                on=exp.EQ(this=column(first, "s"), expression=column(first, "b")),
            )
        )
        ranked = _ranked_within(neighbours, _within(neighbours, bounded, grouped), grouped)
        return ranked.with_(SCORED, as_=scored, materialized=True)

    def unnumbered(
        self,
        neighbours: Neighbours,
        scored: exp.Query,
        kept: Sequence[str],
        votes: Votes,
    ) -> exp.Query:
        coordinates = [coordinate(i) for i in range(len(neighbours.features))]
        texts = [alias(expressions.as_text(column(g, "d")), exact_text(g)) for g in kept]
        distinct = [*kept, *coordinates]
        rows = (
            exp.select(
                *(alias(column(g, "d"), g) for g in distinct),
                *texts,
                alias(exp.Count(this=exp.Star()), COPIES),
            )
            .from_(scored.subquery("d"))
            .group_by(*(column(g, "d") for g in distinct), *(t.this for t in texts))
        )
        distinct += [exact_text(g) for g in kept]
        grouped = [*distinct, COPIES]
        k, heaps = neighbours.k, exp.to_table(HEAPS)
        reduced = column(REDUCED, "p")
        top = (
            exp.select(
                *(alias(column(g, "p"), g) for g in grouped),
                alias(exp.Min(this=reduced, count=literal(k + 1)), SMALLEST),
                alias(
                    exp.ArgMin(
                        this=column(CLASS_INDEX, "p"), expression=reduced.copy(), count=literal(k)
                    ),
                    CLASSES,
                ),
            )
            .from_(neighbours.pairs(rows, grouped).subquery("p"))
            .group_by(*(column(g, "p") for g in grouped))
        )
        positions = {"k": literal(k), "k_and_one": literal(k + 1)}
        untied = templates.build(
            "select_knn_nearest_classes",
            grouped=[column(g, "u") for g in grouped],
            heaps=heaps,
            **positions,
        )
        tied = templates.build("select_knn_tied_rows", heaps=heaps, **positions)
        assert isinstance(untied, exp.Query) and isinstance(tied, exp.Query)
        within = _within(neighbours, tied, grouped).subquery("w")
        kept_by_tie = neighbours.ties.tied(within, grouped, k)
        ranked = exp.union(untied, kept_by_tie, distinct=False)
        voted = votes.of(ranked, grouped, [*kept, COPIES])
        repeated = templates.build("select_knn_copies", voted=voted)
        assert isinstance(repeated, exp.Query)
        names = [*kept, *(score_column(c) for c in range(votes.n_classes))]
        return (
            exp.select(*(column(n, "u") for n in names))
            .from_(repeated.subquery("u"))
            .with_(HEAPS, as_=top)
        )


def search_for(warehouse: Warehouse | None) -> Search:
    """The search an engine runs (None: SQL exported for another engine, the portable
    window): its top-k aggregate, else its lateral top-k, else the window."""
    if warehouse is not None and warehouse.TOP_K_AGGREGATE:
        return BoundedSearch()
    if warehouse is not None and warehouse.LATERAL_TOP_K:
        return LateralSearch()
    return WindowSearch()


@dataclass(frozen=True)
class Votes:
    """The votes of a scored row's neighbours (module docstring): ``wml_j_<c>`` per class
    of ``n_classes`` (DOUBLE >= 0), under ``weights``, the distances those of ``metric``."""

    n_classes: int
    weights: str
    metric: Metric

    def of(self, ranked: exp.Query, grouped: Sequence[str], kept: Sequence[str]) -> exp.Select:
        """Each scored row's votes from its neighbours in ``ranked`` (neighbour rows with
        class_index and wml_reduced): the ``kept`` columns (among the ``grouped`` ones, by which
        the rows are grouped; none: ``ranked`` is one row's), then ``wml_j_<c>`` per class."""
        reduced = column(REDUCED, "r")

        def summed(weight: exp.Expression, c: int) -> exp.Expression:
            vote = templates.expression(
                "knn_vote", class_index=column(CLASS_INDEX, "r"), k=literal(c), weight=weight
            )
            return exp.Sum(this=vote)

        scores = []
        for c in range(self.n_classes):
            if self.weights == UNIFORM:
                score = summed(literal(1.0), c)
            else:
                exact = summed(templates.expression("knn_exact_match", reduced=reduced), c)
                distance = self.metric.distance(reduced.copy())
                inverse = summed(templates.expression("knn_inverse_distance", distance=distance), c)
                any_exact = exp.EQ(this=exp.Min(this=reduced.copy()), expression=literal(0.0))
                score = exp.case().when(any_exact, exact).else_(inverse)
            scores.append(alias(score, score_column(c)))
        query = exp.select(*(alias(column(g, "r"), g) for g in kept), *scores).from_(
            ranked.subquery("r")
        )
        if grouped:
            query = query.group_by(*(column(g, "r") for g in grouped), copy=False)
        return query


@dataclass(frozen=True)
class Neighbours:
    """The k-nearest-neighbour search of one model (or of every fold's, joined ``on`` a
    condition between a scored row ``q`` and a stored row ``t``): its ``features``
    (coordinate order), its stored rows (a query of neighbour, class_index and the
    coordinates), ``k``, the engine's :class:`Search`, the model's ``metric`` and its tie
    rule ``ties`` (ties.py)."""

    features: Sequence[Feature]
    stored: exp.Query
    k: int
    search: Search
    metric: Metric
    ties: TieRule
    on: exp.Expression | None = None

    def _measured(self) -> list[exp.Expression]:
        """A stored row ``t``'s neighbour, class_index and wml_reduced to the scored row ``q``."""
        return [
            alias(column(NEIGHBOUR, "t"), NEIGHBOUR),
            alias(column(CLASS_INDEX, "t"), CLASS_INDEX),
            alias(self.metric.reduced(self.features, "q", "t"), REDUCED),
        ]

    def rows(self, query: exp.Query, name: str) -> exp.Subquery:
        """``query``'s rows (coordinates among their columns) AS ``name``, with the columns
        the metric computes once per row (metrics.py ``Metric.row_columns``)."""
        extra = self.metric.row_columns(self.features, "r")
        if not extra:
            return query.subquery(name)
        return exp.select(exp.Star(), *extra).from_(query.subquery("r")).subquery(name)

    def distances(self) -> exp.Select:
        """The stored rows AS t (those meeting :attr:`on`) with their reduced distance to
        the scored row ``q`` (correlated): neighbour, class_index, wml_reduced."""
        query = exp.select(*self._measured()).from_(self.rows(self.stored, "t"))
        return query if self.on is None else query.where(self.on, copy=False)

    def pairs(self, scored: exp.Query, grouped: Sequence[str]) -> exp.Select:
        """Every (scored row, stored row) pair: ``scored`` (its ``grouped`` columns, which
        identify a row, the first alone, and its coordinates) AS q joined to the stored rows
        AS t on :attr:`on`, or crossed. Columns: the grouped ones, neighbour, class_index,
        wml_reduced."""
        query = exp.select(*(alias(column(g, "q"), g) for g in grouped), *self._measured()).from_(
            self.rows(scored, "q")
        )
        stored = self.rows(self.stored, "t")
        if self.on is None:
            return query.join(stored, join_type="CROSS", copy=False)
        return query.join(stored, on=self.on, copy=False)

    def ranked(self, scored: exp.Query, grouped: Sequence[str]) -> exp.Query:
        """The k nearest stored rows of each row of ``scored`` (its ``grouped`` columns, the
        first a row number, and its coordinates): grouped columns, neighbour, class_index,
        wml_reduced, wml_rank."""
        return self.search.ranked(self, scored, grouped)

    def voted(
        self,
        scored: exp.Query,
        kept: Sequence[str],
        votes: Votes,
        numbered: str | None = None,
    ) -> exp.Query:
        """One row per row of ``scored`` (its ``kept`` columns and its coordinates): the kept
        columns and ``votes``' ``wml_j_<c>`` (``numbered``: :meth:`Search.voted`)."""
        return self.search.voted(self, scored, kept, votes, numbered)
