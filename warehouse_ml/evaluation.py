"""The result of an evaluation: out-of-sample predictions in a table and every measure over it.

:class:`Evaluation` is returned by cross-validation (crossval.py), exact leave-one-out (loo.py)
and hold-out evaluation; each measure is computed in SQL by metrics.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from warehouse_ml import metrics
from warehouse_ml.model import PREDICTION, probability_columns
from warehouse_ml.templates import TableName, column
from warehouse_ml.warehouse import Warehouse

FOLD = "fold"


@dataclass(frozen=True)
class Evaluation:
    """Out-of-sample predictions and the measures computed from them (all in SQL).

    Attributes:
        predictions: the pooled predictions table (key, fold, target, p_<label>..., prediction).
        target: the true-class column in it.
        classes: class labels in probability-column order.
        key: the key column.
        folds: number of folds (1 for a hold-out evaluation).
        split: the fold assignment table, if any.
    """

    warehouse: Warehouse = field(repr=False)
    predictions: TableName
    target: str
    classes: tuple[Any, ...]
    key: str | None
    folds: int
    split: TableName | None = None

    def _kwargs(self, prediction: bool = False) -> dict[str, Any]:
        """Arguments naming the predictions table's columns for the metrics functions."""
        names = {
            "target": self.target,
            "probabilities": dict(
                zip(self.classes, probability_columns([str(c) for c in self.classes]), strict=True)
            ),
        }
        return {**names, "prediction": PREDICTION} if prediction else names

    def to_arrow(self) -> pa.Table:
        """The predictions, ordered by fold then key."""
        order = [column(FOLD, "t")] if self.folds > 1 else []
        if self.key is not None:
            order.append(column(self.key, "t"))
        return self.warehouse.fetch("select_table", table=self.predictions, order_columns=order)

    def accuracy(self, level: float = 0.95) -> metrics.Accuracy:
        """Accuracy, error, kappa and the Wilson interval at ``level``."""
        return metrics.accuracy(
            self.warehouse, self.predictions, level=level, **self._kwargs(prediction=True)
        )

    def confusion_matrix(self) -> pa.Table:
        """Counts and fractions per (true, predicted) class (see metrics.confusion_matrix)."""
        return metrics.confusion_matrix(
            self.warehouse, self.predictions, **self._kwargs(prediction=True)
        )

    def class_measures(self, beta: float = 1.0) -> pa.Table:
        """Per-class precision, recall, specificity, FPR, F-measure."""
        return metrics.class_measures(
            self.warehouse, self.predictions, beta=beta, **self._kwargs(prediction=True)
        )

    def averaged_measures(self, beta: float = 1.0) -> pa.Table:
        """Macro and class-weighted averages of the per-class measures."""
        return metrics.averaged_measures(
            self.warehouse, self.predictions, beta=beta, **self._kwargs(prediction=True)
        )

    def roc_curve(self, positive: Any = None) -> pa.Table:
        """ROC points for ``positive`` (default: the second class)."""
        return metrics.roc_curve(
            self.warehouse, self.predictions, positive=positive, **self._kwargs()
        )

    def auc(self, positive: Any = None) -> metrics.Auc:
        """Area under the ROC curve for ``positive``."""
        return metrics.roc_auc(
            self.warehouse, self.predictions, positive=positive, **self._kwargs()
        )

    def ovr_auc(self) -> metrics.OvrAuc:
        """One-vs-rest AUC per class, macro and class-weighted."""
        return metrics.ovr_auc(self.warehouse, self.predictions, **self._kwargs())

    def average_precision(self, positive: Any = None) -> metrics.AveragePrecision:
        """Average precision and the three-point (20/50/80% recall) average."""
        return metrics.average_precision(
            self.warehouse, self.predictions, positive=positive, **self._kwargs()
        )

    def lift_table(self, positive: Any = None, quantiles: int | Sequence[float] = 10) -> pa.Table:
        """Lift and cumulative gains per quantile of decreasing confidence in ``positive``."""
        return metrics.lift_table(
            self.warehouse,
            self.predictions,
            positive=positive,
            quantiles=quantiles,
            **self._kwargs(),
        )

    def log_score(self) -> metrics.ScoringRule:
        """Sum and mean of -ln p(true class)."""
        return metrics.log_score(self.warehouse, self.predictions, **self._kwargs())

    def brier_score(self) -> metrics.ScoringRule:
        """Brier score (binary: of the positive class; multiclass: summed over classes)."""
        return metrics.brier_score(self.warehouse, self.predictions, **self._kwargs())

    def expected_loss(self, loss: Sequence[Sequence[float]]) -> metrics.LossSummary:
        """Loss of the predictions and of the minimum-expected-loss decisions."""
        return metrics.expected_loss(
            self.warehouse, self.predictions, loss=loss, **self._kwargs(prediction=True)
        )
