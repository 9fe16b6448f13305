"""Measures of decisions: the confusion matrix, accuracy with its interval, and the per-class
and averaged measures of one class against the rest
(``warehouse_ml/sql/evaluation/metrics/select_confusion_cells.sql`` and the templates reading
it)."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from operator import attrgetter

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation.metrics.registry import (
    DECISIONS,
    Criterion,
    Measure,
    Method,
    Option,
    Report,
    option_number,
    register,
    row_as,
)
from warehouse_ml.evaluation.metrics.spec import Spec, prepared
from warehouse_ml.sqlgen import templates


@dataclass(frozen=True)
class Accuracy:
    """Accuracy with its Wilson-form confidence interval (fractions in [0, 1]).

    ``kappa`` is Cohen's kappa (None when chance agreement is 1); ``level`` the interval's
    confidence level.
    """

    n: float
    correct: float
    accuracy: float
    error: float
    kappa: float | None
    level: float
    accuracy_low: float
    accuracy_high: float


def _confusion_query(spec: Spec, src: Source) -> exp.Query:
    return templates.build(
        "select_confusion_cells",
        predictions=prepared(spec, src),
        true_classes=spec.classes("t"),
        predicted_classes=spec.classes("q"),
        count_type=spec.count_type,
    )


def _z(level: float) -> float:
    level = option_number("level", level, "within (0, 1)")
    if not 0.0 < level < 1.0:
        raise ParameterError(f"level must be within (0, 1), got {level!r}")
    return statistics.NormalDist().inv_cdf((1.0 + level) / 2.0)


def _accuracy_query(spec: Spec, src: Source, level: float = 0.95) -> exp.Query:
    return templates.build(
        "select_accuracy",
        cells=_confusion_query(spec, src),
        z=_z(level),
        level=float(level),
        count_type=spec.count_type,
    )


def _beta_squared(beta: float) -> float:
    beta = option_number("beta", beta, "> 0")
    if not beta > 0 or math.isinf(beta):
        raise ParameterError(f"beta must be a positive finite number, got {beta!r}")
    return beta * beta


def _class_measures_query(spec: Spec, src: Source, beta: float = 1.0) -> exp.Query:
    return templates.build(
        "select_class_measures",
        cells=_confusion_query(spec, src),
        beta_squared=_beta_squared(beta),
        count_type=spec.count_type,
    )


def _averaged_measures_query(spec: Spec, src: Source, beta: float = 1.0) -> exp.Query:
    return templates.build(
        "select_averaged_measures", measures=_class_measures_query(spec, src, beta)
    )


def _confusion_grid(table: pa.Table) -> str:
    """The counts as a grid: a row per true class, a column per predicted class."""
    cells = table.to_pylist()
    classes = [c["predicted_class"] for c in cells if c["true_index"] == 0]
    width = max(len(str(c)) for c in classes) + 2
    lines = [" " * width + "".join(str(c).rjust(width) for c in classes)]
    for i, label in enumerate(classes):
        counts = [c["n"] for c in cells if c["true_index"] == i]
        lines.append(str(label).ljust(width) + "".join(str(n).rjust(width) for n in counts))
    return "\n".join(lines)


def _accuracy_line(result: Accuracy) -> str:
    return (
        f"accuracy {result.accuracy:.4f}  ({result.level:.0%} interval "
        f"[{result.accuracy_low:.4f}, {result.accuracy_high:.4f}])  "
        f"error {result.error:.4f}  "
        f"kappa {result.kappa:.4f}"
    )


_BETA = Option("beta", 1.0, "float")

confusion_matrix = register(
    Measure(
        "confusion_matrix",
        _confusion_query,
        doc="""The confusion matrix, one row per (true class, predicted class), zero cells included.

    Columns: true_index, true_class, predicted_index, predicted_class, n (BIGINT rows),
    fraction (of all rows), row_fraction (of the true class's rows). Ordered by true_index,
    predicted_index; ``n`` reshaped to KxK in that order is scikit-learn's confusion_matrix.
    """,
        reads=DECISIONS,
        method=Method(
            "confusion_matrix",
            doc="Counts and fractions per (true, predicted) class (see metrics.confusion_matrix).",
        ),
        report=Report(
            section="confusion matrix (rows: true class, columns: predicted)",
            text=_confusion_grid,
            table="confusion",
        ),
    )
)

accuracy = register(
    Measure(
        "accuracy",
        _accuracy_query,
        doc="""Accuracy, error (1 - accuracy), Cohen's kappa and the Wilson-form accuracy
    interval at confidence ``level`` (z = the normal quantile of (1 + level) / 2), all
    fractions.""",
        options=(Option("level", 0.95, "float"),),
        reads=DECISIONS,
        result=row_as(Accuracy, "accuracy"),
        returns="Accuracy",
        method=Method(
            "accuracy", ("level",), "Accuracy, error, kappa and the Wilson interval at ``level``."
        ),
        report=Report(settings=("level",), section="accuracy", text=_accuracy_line),
        criterion=Criterion("error", attrgetter("error"), larger_is_better=False),
    )
)

class_measures = register(
    Measure(
        "class_measures",
        _class_measures_query,
        doc="""Per-class measures, one class against the rest.

    Columns: class_index, class_label, support (true rows), predicted, tp, fp, fn, tn
    (BIGINT), precision, recall (TPR), specificity (TNR), fpr, f_measure (F-beta; DOUBLE
    fractions; a zero denominator gives 0, scikit-learn's ``zero_division=0``).
    """,
        options=(_BETA,),
        reads=DECISIONS,
        method=Method(
            "class_measures", ("beta",), "Per-class precision, recall, specificity, FPR, F-measure."
        ),
        report=Report(section="per class", table="class_measures"),
    )
)

averaged_measures = register(
    Measure(
        "averaged_measures",
        _averaged_measures_query,
        doc="""Macro (mean over all K classes) and weighted (by support) averages of the per-class
    measures. Columns: average ('macro', 'weighted'), precision, recall, specificity, fpr,
    f_measure (DOUBLE).""",
        options=(_BETA,),
        reads=DECISIONS,
        method=Method(
            "averaged_measures",
            ("beta",),
            "Macro and class-weighted averages of the per-class measures.",
        ),
        report=Report(section="per class", table="averaged_measures"),
    )
)
