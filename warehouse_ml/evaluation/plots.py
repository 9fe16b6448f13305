"""Charts of an evaluation, in a notebook or on a report's page.

:class:`Plots` is a base of :class:`warehouse_ml.evaluation.result.Evaluation` (through
evaluation/report.py's ``Pictures``): each ``plot_*`` draws one chart on a matplotlib ``Axes``
(new when none is given) and returns it, scikit-learn's Display style. Every chart's data come
from the SQL measures (metrics package), drawn by warehouse_ml/charts.py; curves are thinned in
SQL to :data:`CURVE_POINTS` points per class, so a chart of millions of rows ships little to
Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from warehouse_ml import charts
from warehouse_ml.errors import ParameterError

CURVE_POINTS = 500
"""Most points per class a drawn ROC or recall-precision curve has (thinned in SQL)."""
FOLD_CURVES = 20
"""Most folds whose ROC curves :meth:`Plots.plot_roc` draws faintly (one query each): past
that the curves are a blur, and a leave-one-out's folds are single rows, whose ROC is no
curve; the pooled curve is drawn alone."""


class Plots:
    """The charts of an evaluation (module docstring). Relies on the evaluation's ``classes``,
    ``folds``, ``measure`` and ``fold_measure``."""

    classes: tuple[Any, ...]
    folds: int
    measure: Callable[..., Any]
    fold_measure: Callable[..., Any]

    def chart_class(self, positive: Any = None) -> Any:
        """The class a one-class chart is of: ``positive``, else the second class of a binary
        problem, else the first."""
        if positive is None:
            return self.classes[1] if len(self.classes) == 2 else self.classes[0]
        if positive not in self.classes:
            raise ParameterError(f"positive={positive!r} is not one of {list(self.classes)}")
        return positive

    def _roc_classes(self, positive: Any) -> list[Any]:
        """The classes a ROC chart draws: the positive class of a binary problem, else each
        class against the rest (or just ``positive`` when given)."""
        if len(self.classes) == 2 or positive is not None:
            return [self.chart_class(positive)]
        return list(self.classes)

    def plot_roc(self, ax: Any = None, positive: Any = None, folds: bool = False) -> Any:
        """ROC curve of ``positive`` (binary default: the second class; multiclass default:
        every class against the rest) over the pooled predictions, AUC in the legend; with
        ``folds`` (a cross-validation of at most :data:`FOLD_CURVES` folds, one class), each
        fold's curve faintly behind it; returns the axes."""
        ax = charts.axes_or_new(ax)
        shown = self._roc_classes(positive)
        if folds and 1 < self.folds <= FOLD_CURVES and len(shown) == 1:
            charts.faint_curves(
                ax,
                [
                    self.fold_measure("roc_curve", f, positive=shown[0], max_points=CURVE_POINTS)
                    for f in range(self.folds)
                ],
            )
        curves = {
            str(c): self.measure("roc_curve", positive=c, max_points=CURVE_POINTS) for c in shown
        }
        aucs = {str(c): self.measure("roc_auc", positive=c).auc for c in shown}
        return charts.roc(ax, curves, aucs)

    def plot_precision_recall(self, ax: Any = None, positive: Any = None) -> Any:
        """Recall-precision curve of ``positive`` with its average precision and the three-point
        interpolated precision marked; returns the axes."""
        ax = charts.axes_or_new(ax)
        label = self.chart_class(positive)
        points = self.measure("precision_recall_curve", positive=label, max_points=CURVE_POINTS)
        ap = self.measure("average_precision", positive=label)
        return charts.precision_recall(
            ax, points, str(label), ap.average_precision, ap.recall_levels,
            ap.interpolated_precision,
        )  # fmt: skip

    def plot_lift(self, ax: Any = None, positive: Any = None, quantiles: int = 10) -> Any:
        """Lift per quantile and cumulative gains of ``positive``; returns the axes."""
        ax = charts.axes_or_new(ax)
        label = self.chart_class(positive)
        table = self.measure("lift_table", positive=label, quantiles=quantiles)
        return charts.lift(ax, table, str(label))

    def plot_calibration(self, ax: Any = None, positive: Any = None, bins: int = 10) -> Any:
        """Reliability diagram of ``positive`` (bins computed in SQL, rows per bin shown);
        returns the axes."""
        ax = charts.axes_or_new(ax)
        label = self.chart_class(positive)
        return charts.calibration(
            ax, self.measure("calibration", positive=label, bins=bins), str(label)
        )

    def plot_confusion_matrix(self, ax: Any = None) -> Any:
        """Confusion matrix heatmap (rows: true class); returns the axes."""
        ax = charts.axes_or_new(ax)
        return charts.confusion(ax, self.measure("confusion_matrix"), self.classes)
