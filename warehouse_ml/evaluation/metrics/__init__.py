"""Evaluation measures as plain SQL over any predictions relation.

A *predictions relation* is any source (table or view name, Arrow table, Parquet/CSV path) with

* a true-label column (``target``);
* one probability column per class (``probabilities``: a mapping ``{label: column}`` in class
  order; by default every column named ``p_<label>``, as written by
  :meth:`Classifier.create_view`, with labels compared to ``CAST(target AS VARCHAR)``);
* optionally a prediction column (``prediction``); without one, the prediction is the class of
  largest probability (ties to the first class in class order).

Rows whose true label is NULL or not one of the classes are left out of every measure. Rows
with a NULL prediction are left out of the confusion-matrix measures; rows with a NULL
probability are left out of the ranking measures (ROC, PR, AUC, lift) of that class.

Every measure is one entry of the registry (registry.py): its query builder renders
``warehouse_ml/sql/evaluation/metrics/*.sql`` templates into one query, and its function
(``metrics.<name>``, made from the entry) runs it in the warehouse and returns an Arrow table or a
small frozen dataclass. :func:`create_measure_view` stores the same query as a view (plain SQL, no
UDFs) that SQL clients can query later; :func:`measure_sql` returns its text for any dialect.
Logarithms are natural (``LN``); every division has a DOUBLE side; sums of floating terms are added
exactly as decimals (see ``select_exact_sum.sql``) so that the same input gives the same result on
every run and engine.

The modules: spec.py (resolving the columns, the prepared predictions), registry.py (the
entries and what is derived from them), confusion.py, ranking.py, lift.py, calibration.py,
threshold.py, scoring_rules.py and loss.py (the measures), views.py (views and SQL text).
"""

from __future__ import annotations

from typing import Any

from warehouse_ml.evaluation.metrics import registry
from warehouse_ml.evaluation.metrics.calibration import calibration
from warehouse_ml.evaluation.metrics.confusion import (
    Accuracy,
    accuracy,
    averaged_measures,
    class_measures,
    confusion_matrix,
)
from warehouse_ml.evaluation.metrics.lift import lift_table
from warehouse_ml.evaluation.metrics.loss import (
    DECISION_COLUMNS,
    LossSummary,
    expected_loss,
    loss_decisions,
)
from warehouse_ml.evaluation.metrics.ranking import (
    THREE_POINT_LEVELS,
    Auc,
    AveragePrecision,
    OvrAuc,
    average_precision,
    class_auc,
    interpolated_average_precision,
    interpolated_precision,
    ovr_auc,
    precision_recall_curve,
    roc_auc,
    roc_curve,
)
from warehouse_ml.evaluation.metrics.registry import Measure, register, unregister
from warehouse_ml.evaluation.metrics.scoring_rules import (
    DEFAULT_FLOOR,
    ScoringRule,
    brier_score,
    log_score,
)
from warehouse_ml.evaluation.metrics.threshold import best_threshold
from warehouse_ml.evaluation.metrics.views import create_measure_view, measure_sql

MEASURES = registry.names()
"""Names of the measures the library defines, accepted by :func:`create_measure_view` and
:func:`measure_sql` (a measure registered later is accepted too: ``registry.names()``)."""

__all__ = [
    "DECISION_COLUMNS",
    "DEFAULT_FLOOR",
    "MEASURES",
    "THREE_POINT_LEVELS",
    "Accuracy",
    "Auc",
    "AveragePrecision",
    "LossSummary",
    "Measure",
    "OvrAuc",
    "ScoringRule",
    "accuracy",
    "average_precision",
    "averaged_measures",
    "best_threshold",
    "brier_score",
    "calibration",
    "class_auc",
    "class_measures",
    "confusion_matrix",
    "create_measure_view",
    "expected_loss",
    "interpolated_average_precision",
    "interpolated_precision",
    "lift_table",
    "log_score",
    "loss_decisions",
    "measure_sql",
    "ovr_auc",
    "precision_recall_curve",
    "register",
    "registry",
    "roc_auc",
    "roc_curve",
    "unregister",
]


def __getattr__(name: str) -> Any:
    """``metrics.<name>``: the function of a measure registered after this module loaded."""
    if name in registry.names():
        return registry.function(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
