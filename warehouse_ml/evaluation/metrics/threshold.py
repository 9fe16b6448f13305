"""Choosing a decision threshold from the ROC points of one class
(``warehouse_ml/sql/evaluation/metrics/select_best_threshold.sql``): the cheapest under a cost
ratio, or the largest that reaches a target recall. The threshold feeds ``predict(..., threshold=t,
positive=c)`` and prediction views."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation.metrics.ranking import POSITIVE, roc_points
from warehouse_ml.evaluation.metrics.registry import Call, Measure, Method, Option, register
from warehouse_ml.evaluation.metrics.spec import Spec, one_row
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import column, literal


@dataclass(frozen=True)
class Threshold:
    """A chosen threshold of class ``positive`` and its point of the ROC curve: predicting the
    class when its probability >= ``threshold`` gives ``tp`` true and ``fp`` false positives
    (``tpr``, ``fpr``); ``objective`` is the cost fp + cost_ratio * fn in false alarms (cost
    ratio) or the negated threshold (target recall)."""

    positive: Any
    threshold: float
    tp: int
    fp: int
    tpr: float | None
    fpr: float | None
    objective: float


def _number(value: Any) -> bool:
    """Whether ``value`` is a real number (not a bool, not a string)."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _criterion(cost_ratio: float | None, target_recall: float | None) -> tuple[Any, Any]:
    """The (objective, eligible) expressions of the choice asked for."""
    if (cost_ratio is None) == (target_recall is None):
        raise ParameterError(
            "give exactly one of cost_ratio (cost of a missed positive / cost of a false "
            "alarm) and target_recall"
        )
    tp, fp, tpr = column("tp", "p"), column("fp", "p"), column("tpr", "p")
    if cost_ratio is not None:
        if not _number(cost_ratio) or not 0 < cost_ratio < math.inf:
            raise ParameterError(f"cost_ratio must be a positive finite number, got {cost_ratio!r}")
        missed = exp.paren(exp.Sub(this=column("positives", "p"), expression=tp), copy=False)
        cost = exp.Add(
            this=fp, expression=exp.Mul(this=literal(float(cost_ratio)), expression=missed)
        )
        return cost, exp.true()
    if not _number(target_recall) or not 0 < target_recall <= 1:
        raise ParameterError(f"target_recall must be within (0, 1], got {target_recall!r}")
    reached = exp.GTE(this=tpr, expression=literal(float(target_recall)))
    return exp.Neg(this=column("threshold", "p")), reached


def _best_query(
    spec: Spec,
    src: Source,
    positive: Any = None,
    cost_ratio: float | None = None,
    target_recall: float | None = None,
) -> exp.Query:
    objective, eligible = _criterion(cost_ratio, target_recall)
    return templates.build(
        "select_best_threshold",
        points=roc_points(spec, src, positive),
        objective=objective,
        eligible=eligible,
    )


def _best(
    call: Call,
    positive: Any = None,
    cost_ratio: float | None = None,
    target_recall: float | None = None,
) -> Threshold:
    row = one_row(
        call.table(positive=positive, cost_ratio=cost_ratio, target_recall=target_recall),
        "a threshold (no point of the ROC curve qualifies)",
    )
    index = row.pop("class_index")
    return Threshold(positive=call.spec.labels[index], **row)


best_threshold = register(
    Measure(
        "best_threshold",
        _best_query,
        doc="""The decision threshold of the ``positive`` class chosen from its ROC points: with
    ``cost_ratio`` (cost of a missed positive / cost of a false alarm) the one of least cost
    fp + cost_ratio * fn (``objective``, in false alarms); with ``target_recall`` the largest
    threshold whose recall (tpr) reaches it (``objective`` = -threshold). Ties go to the larger
    threshold. Feed it to ``predict(..., threshold=t.threshold, positive=t.positive)``.""",
        options=(
            POSITIVE,
            Option("cost_ratio", None, "float | None"),
            Option("target_recall", None, "float | None"),
        ),
        result=_best,
        returns="Threshold",
        method=Method(
            "best_threshold",
            ("positive", "cost_ratio", "target_recall"),
            "The threshold of least cost under ``cost_ratio``, or the largest reaching "
            "``target_recall``.",
        ),
    )
)
