"""Calibration: how well one class's probabilities match the share of the class among the rows
given them, as a reliability diagram's bins
(``warehouse_ml/sql/evaluation/metrics/select_calibration_bins.sql``)."""

from __future__ import annotations

from typing import Any

import numpy as np
from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation.metrics.ranking import POSITIVE, class_scores
from warehouse_ml.evaluation.metrics.registry import Measure, Method, Option, register
from warehouse_ml.evaluation.metrics.spec import Spec, positive_index
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import column, literal


def _edges(bins: Any) -> list[float]:
    """bins + 1 equal-width edges of [0, 1], the very doubles of ``numpy.linspace`` (as
    scikit-learn's calibration_curve cuts them)."""
    if isinstance(bins, bool) or not isinstance(bins, int) or bins < 1:
        raise ParameterError(f"bins must be a positive integer, got {bins!r}")
    return [float(e) for e in np.linspace(0.0, 1.0, bins + 1)]


def _calibration_query(spec: Spec, src: Source, positive: Any = None, bins: int = 10) -> exp.Query:
    edges = _edges(bins)
    score = column("score", "s")
    bin_of = exp.case()
    for i, upper in enumerate(edges[1:-1]):
        bin_of = bin_of.when(exp.LTE(this=score.copy(), expression=literal(upper)), literal(i))
    bin_of = bin_of.else_(literal(bins - 1))
    return templates.build(
        "select_calibration_bins",
        scores=class_scores(spec, src, positive_index(spec, positive)),
        bin=bin_of,
        edges=templates.values(
            [[i, edges[i], edges[i + 1]] for i in range(bins)], "e", ["bin", "lower", "upper"]
        ),
        count_type=spec.count_type,
        mean_predicted=_mean_predicted(spec),
    )


def _mean_predicted(spec: Spec) -> exp.Expression:
    """A bin's mean predicted probability: AVG of its scores, or their weighted mean."""
    score, weight = column("score", "b"), column("weight", "b")
    if spec.weight is None:
        return exp.Avg(this=score)
    return exp.Div(
        this=exp.Sum(this=exp.Mul(this=score, expression=weight)),
        expression=exp.Sum(this=weight.copy()),
    )


calibration = register(
    Measure(
        "calibration",
        _calibration_query,
        doc="""Reliability diagram of the ``positive`` class: its probability cut into ``bins``
    equal-width bins of [0, 1] (bin i: lower < p <= upper; the first also p = 0).

    Columns: bin (0-based), lower, upper (DOUBLE), n (BIGINT rows), positives (BIGINT),
    mean_predicted (mean probability in the bin), observed (share of the class in the bin);
    empty bins are left out. scikit-learn's ``calibration_curve(y, p, n_bins=bins)`` gives
    ``observed`` and ``mean_predicted`` of the same bins.
    """,
        options=(POSITIVE, Option("bins", 10, "int")),
        method=Method(
            "calibration",
            ("positive", "bins"),
            "Reliability diagram bins of ``positive``: mean probability against observed share.",
        ),
    )
)
