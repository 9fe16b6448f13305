"""Proper scoring rules of the probabilities: the logarithmic score and the Brier score, each
a total over rows summed exactly (``select_exact_sum.sql``) and its mean."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import numpy as np
from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation.metrics.ranking import POSITIVE
from warehouse_ml.evaluation.metrics.registry import (
    Criterion,
    Measure,
    Method,
    Option,
    Report,
    option_number,
    register,
    row_as,
)
from warehouse_ml.evaluation.metrics.spec import (
    PREPARED,
    Spec,
    exact_sum,
    positive_index,
    prepared,
    probability,
)
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import column, literal

DEFAULT_FLOOR = float(np.finfo(np.float64).eps)
"""Default probability floor of :func:`log_score`: p is clipped to [eps, 1 - eps] with the
float64 machine epsilon (2.22e-16), as scikit-learn's ``log_loss`` does."""
SECTION = "scoring rules"


@dataclass(frozen=True)
class ScoringRule:
    """A proper scoring rule: ``total`` over ``n`` rows and its ``mean`` (lower is better)."""

    n: float
    total: float
    mean: float


def _row_terms(spec: Spec, src: Source, term: exp.Expression) -> exp.Query:
    return exact_sum(
        spec,
        templates.build(
            "select_row_terms",
            predictions=prepared(spec, src),
            term=term,
            weight=column("wml_weight", PREPARED),
        ),
    )


def _log_score_query(spec: Spec, src: Source, floor: float = DEFAULT_FLOOR) -> exp.Query:
    floor = option_number("floor", floor, "within (0, 0.5)")
    if not 0.0 < floor < 0.5:
        raise ParameterError(f"floor must be within (0, 0.5), got {floor!r}")
    truth = column("wml_truth", PREPARED)
    p_true = exp.case()
    for i in range(spec.k):
        p_true = p_true.when(exp.EQ(this=truth.copy(), expression=literal(i)), probability(i))
    return _row_terms(
        spec, src, templates.expression("clipped_log_loss", probability=p_true, floor=floor)
    )


def _brier_query(spec: Spec, src: Source, positive: Any = None) -> exp.Query:
    indexes = [positive_index(spec, positive)] if spec.k == 2 else list(range(spec.k))
    if spec.k > 2 and positive is not None:
        raise ParameterError("positive=... applies to binary Brier scores only")
    parts = [
        templates.expression(
            "squared_error",
            probability=probability(i),
            truth=column("wml_truth", PREPARED),
            class_index=i,
        )
        for i in indexes
    ]
    return _row_terms(
        spec, src, functools.reduce(lambda a, b: exp.Add(this=a, expression=b), parts)
    )


log_score = register(
    Measure(
        "log_score",
        _log_score_query,
        doc="""Logarithmic score: total and mean of -ln p(true class), natural log (nats), with p
    clipped to [floor, 1 - floor] (default float64 eps, as scikit-learn's ``log_loss``; a NULL
    probability counts as the floor). The mean is scikit-learn's log loss.""",
        options=(Option("floor", DEFAULT_FLOOR, "float"),),
        result=row_as(ScoringRule, "the log score"),
        returns="ScoringRule",
        method=Method("log_score", (), "Sum and mean of -ln p(true class)."),
        report=Report(
            section=SECTION,
            text=lambda r: f"log score: sum {r.total:.4f}, mean {r.mean:.4f} (natural log)",
        ),
        criterion=Criterion("log_score", attrgetter("mean"), larger_is_better=False),
    )
)

brier_score = register(
    Measure(
        "brier_score",
        _brier_query,
        doc="""Brier score. Binary: mean over rows of (p_positive - [true = positive])^2, as
    scikit-learn's ``brier_score_loss`` (positive: default the second class). Multiclass: mean
    over rows of the sum over classes of (p_c - [true = c])^2 (scikit-learn's multiclass form,
    in [0, 2]).""",
        options=(POSITIVE,),
        result=row_as(ScoringRule, "the Brier score"),
        returns="ScoringRule",
        method=Method(
            "brier_score",
            (),
            "Brier score (binary: of the positive class; multiclass: summed over classes).",
        ),
        report=Report(section=SECTION, text=lambda r: f"Brier score: mean {r.mean:.4f}"),
        criterion=Criterion("brier", attrgetter("mean"), larger_is_better=False),
    )
)
