"""How much an attribute tells about the class: MI(A; C) in bits.

From counts (:func:`class_information_query`, SQL over (attribute, value, class) counts such as
stats/counting.categorical_counts' or a fitted model's ``categorical`` table): categorical
values and binned numerics alike. From a Naive Bayes model's class-conditional Gaussians
(:func:`gaussian_information`): the MI of the fitted normals on equal-frequency bins of their
mixture, which needs no data.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, alias, column
from warehouse_ml.stats.counting import PARTITION


def class_information_query(counts: TableName | exp.Query) -> exp.Query:
    """MI(A; C) of every attribute with counted rows.

    Args:
        counts: a relation of (wml_part, attribute, value, class_label, n) rows (n > 0 cells
            are used; each partition from its own counts).

    Returns:
        query with columns wml_part, attribute (VARCHAR), n (BIGINT rows with a value and a
        class), mi (DOUBLE bits).
    """
    return templates.build("select_class_information", counts=counts)


def model_counts(categorical: TableName | exp.Query) -> exp.Query:
    """A fitted model's ``categorical`` parameter table (attribute, value, class_index, n) as
    the counts :func:`class_information_query` reads."""
    relation = (
        categorical.to_table() if isinstance(categorical, TableName) else categorical.subquery()
    )
    return exp.select(
        alias(column(PARTITION, "c"), PARTITION),
        alias(column("attribute", "c"), "attribute"),
        alias(column("value", "c"), "value"),
        alias(exp.cast(column("class_index", "c"), "VARCHAR"), "class_label"),
        alias(column("n", "c"), "n"),
    ).from_(relation.as_("c"))


@dataclass(frozen=True)
class ClassNormal:
    """One class's fitted normal of a numeric attribute: its counted rows ``n`` (non-NULL
    values), ``mean`` and ``variance`` (> 0)."""

    n: float
    mean: float
    variance: float

    def cdf(self, x: float) -> float:
        if x == math.inf:
            return 1.0
        if x == -math.inf:
            return 0.0
        return 0.5 * math.erfc(-(x - self.mean) / math.sqrt(2.0 * self.variance))


def _mixture_quantile(normals: Sequence[ClassNormal], weights: Sequence[float], q: float) -> float:
    """The ``q`` quantile of the mixture, by bisection to the last bit of a double."""
    spread = max(math.sqrt(c.variance) for c in normals)
    low = min(c.mean for c in normals) - 40.0 * spread
    high = max(c.mean for c in normals) + 40.0 * spread
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        below = sum(w * c.cdf(middle) for w, c in zip(weights, normals, strict=True))
        low, high = (middle, high) if below < q else (low, middle)
    return 0.5 * (low + high)


def mixture_edges(normals: Sequence[ClassNormal], bins: int) -> list[float]:
    """The inner edges of ``bins`` equal-frequency bins of the mixture of ``normals`` (class
    weights n_c / sum n; classes with no rows left out): its b/bins quantiles, b = 1..bins-1."""
    kept = [c for c in normals if c.n > 0]
    total = sum(c.n for c in kept)
    weights = [c.n / total for c in kept]
    return [_mixture_quantile(kept, weights, b / bins) for b in range(1, bins)]


def gaussian_information(normals: Sequence[ClassNormal], bins: int) -> float:
    """MI(A; C) in bits of a numeric attribute modelled by one normal per class, on ``bins``
    equal-frequency bins of the mixture (class weights n_c / sum n): the edges are the
    mixture's b/bins quantiles, P(bin | c) the class normal's mass between them, and
    MI = sum_c w_c sum_b P(b | c) log2(P(b | c) / P(b)). Classes with no rows are left out."""
    kept = [c for c in normals if c.n > 0]
    total = sum(c.n for c in kept)
    if len(kept) < 2 or bins < 2:
        return 0.0
    weights = [c.n / total for c in kept]
    edges = [-math.inf, *mixture_edges(kept, bins), math.inf]
    mass = [[c.cdf(edges[b + 1]) - c.cdf(edges[b]) for b in range(bins)] for c in kept]
    marginal = [sum(w * m[b] for w, m in zip(weights, mass, strict=True)) for b in range(bins)]
    return math.fsum(
        w * p * math.log2(p / marginal[b])
        for w, m in zip(weights, mass, strict=True)
        for b, p in enumerate(m)
        if p > 0
    )
