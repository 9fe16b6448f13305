"""The distances k nearest neighbours measure between a scored row and a stored one, over the
coordinates of models/learners/neighbors/search.py (a numeric attribute's standardised value,
NULL 0; a categorical attribute's level number, -1 for NULL or unseen, a level of its own).

* ``"minkowski"`` with power ``p >= 1``: ``(sum over the attributes of |difference| ** p) **
  (1 / p)``, a numeric attribute's difference that of its standardised values, a categorical
  attribute's the overlap distance, 0 for the same level and 1 otherwise (as scikit-learn's
  Minkowski distance over one indicator per level, NULL or unseen one more, of value
  ``2 ** (-1 / p)``); ``"euclidean"`` is ``p = 2`` and ``"manhattan"`` ``p = 1``, and the
  Minkowski metric with those powers is written as they are (a product, an absolute value:
  no POWER);
* ``"cosine"``: scikit-learn's cosine distance ``1 - x.y / (|x| |y|)``, in [0, 2], over the
  vectors whose Euclidean distance is the euclidean metric's: the standardised numbers and,
  per categorical attribute, an indicator of the row's level (NULL or unseen a level of its
  own) of value ``1 / sqrt(2)``, so that a categorical attribute adds 1/2 to each row's
  squared norm and 1/2 to the inner product when both rows have the same level. A zero vector
  (a row at the training mean, or NULL, of every numeric attribute and with no categorical
  attribute) has cosine similarity 0 to every row, so distance 1 (to another zero vector too),
  as scikit-learn's ``cosine_distances``.

Each metric ranks by a *reduced* distance, a function of the distance increasing with it (as
scikit-learn's ``rdist``): the sum of the p-th powers for the Minkowski metrics (the squared
distance for the Euclidean), the distance itself for the cosine. The searches order, bound
and compare that one expression, the same SQL in every search and pass, so a tie across the
k-th distance is equality of the same doubles wherever it is checked; the distance (for
``weights="distance"`` and ``explain``) is computed from it. The expressions are portable
(ABS, POWER, SQRT, GREATEST, LEAST), terms added in a fixed order (steps.balanced_sum).
"""

from __future__ import annotations

import abc
import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from warehouse_ml.errors import ParameterError
from warehouse_ml.models.learners.neighbors.columns import coordinate
from warehouse_ml.models.scoring.steps import balanced_sum
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import NUMERIC, Feature

EUCLIDEAN, MANHATTAN, MINKOWSKI, COSINE = "euclidean", "manhattan", "minkowski", "cosine"
METRICS = (EUCLIDEAN, MANHATTAN, MINKOWSKI, COSINE)
DEFAULT_P = 2.0
"""The Minkowski power when none is given (scikit-learn's default, the Euclidean distance)."""


class Metric(abc.ABC):
    """A distance between the coordinates of two rows (module docstring)."""

    @abc.abstractmethod
    def reduced(self, features: Sequence[Feature], scored: str, stored: str) -> exp.Expression:
        """The reduced distance (DOUBLE >= 0, 0 exactly at distance 0) between the rows aliased
        ``scored`` and ``stored``, whose coordinates are those of ``features``."""

    @abc.abstractmethod
    def distance(self, reduced: exp.Expression) -> exp.Expression:
        """The distance (DOUBLE >= 0) whose reduced distance is ``reduced``."""

    def row_columns(self, features: Sequence[Feature], row: str) -> list[exp.Expression]:
        """The aliased columns of one row (aliased ``row``) that :meth:`reduced` reads beside
        its coordinates, computed once per row rather than once per pair (none here)."""
        return []


def _pairs(
    features: Sequence[Feature], scored: str, stored: str
) -> list[tuple[str, exp.Column, exp.Column]]:
    """Each feature's kind and coordinates in the rows aliased ``scored`` and ``stored``."""
    return [
        (f.kind, column(coordinate(i), scored), column(coordinate(i), stored))
        for i, f in enumerate(features)
    ]


def _sum(terms: Sequence[exp.Expression]) -> exp.Expression:
    return balanced_sum(terms) if terms else literal(0.0)


@dataclass(frozen=True)
class Minkowski(Metric):
    """The Minkowski distance of power ``p`` (module docstring)."""

    p: float

    def _difference(self, scored: exp.Expression, stored: exp.Expression) -> exp.Expression:
        """A numeric attribute's |difference| ** p."""
        if self.p == 2:
            return templates.expression("knn_squared_difference", scored=scored, stored=stored)
        if self.p == 1:
            return templates.expression("knn_absolute_difference", scored=scored, stored=stored)
        return templates.expression(
            "knn_power_difference", scored=scored, stored=stored, p=literal(self.p)
        )

    def reduced(self, features: Sequence[Feature], scored: str, stored: str) -> exp.Expression:
        return _sum(
            [
                self._difference(a, b)
                if kind == NUMERIC
                else templates.expression("knn_overlap", scored=a, stored=b)
                for kind, a, b in _pairs(features, scored, stored)
            ]
        )

    def distance(self, reduced: exp.Expression) -> exp.Expression:
        if self.p == 1:
            return reduced
        if self.p == 2:
            return exp.Sqrt(this=reduced)
        return exp.Pow(this=reduced, expression=literal(1 / self.p))


SQUARE = "wml_square"
"""A row's squared Euclidean norm (DOUBLE >= 0), beside its coordinates for the cosine."""


class Cosine(Metric):
    """The cosine distance (module docstring)."""

    def row_columns(self, features: Sequence[Feature], row: str) -> list[exp.Expression]:
        """The row's squared norm: its numbers' squares plus 1/2 per categorical attribute."""
        squares = [
            templates.expression("knn_product", scored=a, stored=a.copy())
            for kind, a, _ in _pairs(features, row, row)
            if kind == NUMERIC
        ]
        levels = sum(f.kind != NUMERIC for f in features)
        return [alias(_sum([*squares, *([literal(0.5 * levels)] if levels else [])]), SQUARE)]

    def reduced(self, features: Sequence[Feature], scored: str, stored: str) -> exp.Expression:
        products = [
            templates.expression(
                "knn_product" if kind == NUMERIC else "knn_level_product", scored=a, stored=b
            )
            for kind, a, b in _pairs(features, scored, stored)
        ]
        return templates.expression(
            "knn_cosine_distance",
            product=_sum(products),
            scored_square=column(SQUARE, scored),
            stored_square=column(SQUARE, stored),
        )

    def distance(self, reduced: exp.Expression) -> exp.Expression:
        return reduced


def metric_of(metric: str, p: float | int = DEFAULT_P) -> Metric:
    """The metric named ``metric`` with Minkowski power ``p``; a ParameterError for an unknown
    name, a power that is not a finite number >= 1, or a power other than the default for a
    metric other than ``"minkowski"`` (which would ignore it)."""
    if metric not in METRICS:
        raise ParameterError(f"metric must be one of {', '.join(METRICS)}; got {metric!r}")
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not (math.isfinite(p) and p >= 1):
        raise ParameterError(f"p must be a finite number >= 1, got {p!r}")
    if metric != MINKOWSKI and p != DEFAULT_P:
        raise ParameterError(
            f"p applies to metric='minkowski' only; got metric={metric!r}, p={p!r}"
        )
    if metric == COSINE:
        return Cosine()
    return Minkowski({EUCLIDEAN: 2.0, MANHATTAN: 1.0}.get(metric, float(p)))
