"""Decisions under a loss matrix L(true, predicted): the minimum-expected-loss decision of each
row, and the mean loss of the predictions, of those decisions and of the model's own
expectation (``warehouse_ml/sql/evaluation/metrics/select_loss_decisions.sql`` and the templates
reading it)."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter

from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation.metrics.registry import (
    DECISIONS,
    REQUIRED,
    Criterion,
    Measure,
    Method,
    Option,
    register,
    row_as,
)
from warehouse_ml.evaluation.metrics.spec import (
    PREPARED,
    Spec,
    exact_sum,
    key_name,
    prepared,
    probability,
)
from warehouse_ml.models.scoring import names
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal

DECISION_COLUMNS = (
    "true_class",
    "decision",
    "expected_loss",
    "true_index",
    "decision_index",
    "predicted_index",
    "weight",
)
"""The columns select_loss_decisions.sql adds after the keys."""


@dataclass(frozen=True)
class LossSummary:
    """Mean loss per row under a loss matrix L(true, predicted):

    * ``prediction_loss``: of the prediction column (or the argmax prediction);
    * ``decision_loss``: of the minimum-expected-loss decisions;
    * ``expected_loss``: the model's own expectation of the decisions' loss (mean over rows of
      min_j sum_c L(c, j) p_c).
    """

    n: float
    prediction_loss: float | None
    decision_loss: float | None
    expected_loss: float | None


def _loss_matrix(spec: Spec, loss: Sequence[Sequence[float]]) -> list[list[float]]:
    matrix = [[float(x) for x in row] for row in loss]
    if len(matrix) != spec.k or any(len(row) != spec.k for row in matrix):
        raise ParameterError(
            f"loss matrix must be {spec.k}x{spec.k} (classes {list(spec.labels)}, "
            f"L[true][predicted]), got {len(matrix)} rows"
        )
    if any(not math.isfinite(x) for row in matrix for x in row):
        raise ParameterError("loss matrix entries must be finite numbers")
    return matrix


def _decisions_query(
    spec: Spec, src: Source, loss: Sequence[Sequence[float]] = (), keys: Sequence[str] = ()
) -> exp.Query:
    matrix = _loss_matrix(spec, loss)
    expected = []
    for j in range(spec.k):
        parts = [
            exp.Mul(this=literal(matrix[c][j]), expression=probability(c)) for c in range(spec.k)
        ]
        expected.append(functools.reduce(lambda a, b: exp.Add(this=a, expression=b), parts))
    losses_l = [column(f"wml_loss_{j}", "l") for j in range(spec.k)]
    losses_d = [column(f"wml_loss_{j}", "d") for j in range(spec.k)]
    minimum = exp.Least(this=losses_l[0], expressions=losses_l[1:], ignore_nulls=True)
    decision = exp.case()
    for j, item in enumerate(losses_d):
        decision = decision.when(
            exp.EQ(this=item, expression=column("wml_minimum", "d")), literal(j)
        )
    names.check_outputs(keys, DECISION_COLUMNS, src.description)
    return templates.build(
        "select_loss_decisions",
        predictions=prepared(spec, src, keys),
        keys=[alias(column(key_name(i), "c"), k) for i, k in enumerate(keys)],
        expected_losses=[alias(e, f"wml_loss_{j}") for j, e in enumerate(expected)],
        minimum=minimum,
        decision=decision,
        classes=spec.classes("k"),
        true_classes=spec.classes("t"),
    )


def _loss_summary_query(spec: Spec, src: Source, loss: Sequence[Sequence[float]] = ()) -> exp.Query:
    matrix = _loss_matrix(spec, loss)
    decisions = _decisions_query(spec, src, matrix)
    costs = [[i, j, matrix[i][j]] for i in range(spec.k) for j in range(spec.k)]

    def incurred(chosen: str) -> exp.Query:
        return templates.build(
            "select_incurred_loss",
            decisions=decisions,
            chosen=chosen,
            costs=templates.values(costs, "m", ["true_index", "predicted_index", "loss"]),
        )

    expected = templates.build(
        "select_row_terms",
        predictions=decisions,
        term=column("expected_loss", PREPARED),
        weight=column("weight", PREPARED),
    )
    return templates.build(
        "select_loss_summary",
        prediction_sum=exact_sum(spec, incurred("predicted_index")),
        decision_sum=exact_sum(spec, incurred("decision_index")),
        expected_sum=exact_sum(spec, expected),
    )


_LOSS = Option("loss", REQUIRED, "Sequence[Sequence[float]]")

loss_decisions = register(
    Measure(
        "loss_decisions",
        _decisions_query,
        doc="""The minimum-expected-loss decision for each row: argmin_j sum_c L(c, j) p_c, ties to
    the first class; ``loss[c][j]`` is the cost of predicting class j when the truth is c.

    Columns: the ``keys`` columns, true_class, decision (labels), expected_loss (DOUBLE, the
    decision's expected loss), true_index, decision_index, predicted_index (INTEGER).
    """,
        options=(_LOSS, Option("keys", (), "Sequence[str]")),
        reads=DECISIONS,
    )
)

expected_loss = register(
    Measure(
        "expected_loss",
        _loss_summary_query,
        doc="""Mean loss per row under ``loss`` (L[true][predicted]) of the predictions, of the
    minimum-expected-loss decisions, and the decisions' expected loss (see
    :class:`LossSummary`).""",
        options=(_LOSS,),
        reads=DECISIONS,
        result=row_as(LossSummary, "the expected loss"),
        returns="LossSummary",
        method=Method(
            "expected_loss",
            ("loss",),
            "Loss of the predictions and of the minimum-expected-loss decisions.",
        ),
        criterion=Criterion(
            "expected_loss",
            attrgetter("decision_loss"),
            larger_is_better=False,
            argument="loss",
            missing="a loss matrix: loss=[[...], ...]",
        ),
    )
)
