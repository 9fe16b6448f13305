"""warehouse-ml: classifiers learned, scored, explained and evaluated inside the warehouse.

Public API::

    import warehouse_ml as wml
    model = wml.NaiveBayes(alpha=1.0).fit(con, "sales.customers", target="churned")
    model.predict_proba(con, "sales.new_customers")       # Arrow table, one column per class
    model.create_view(con, "sales.churn_scores", "sales.new_customers", keys=["id"])
    wml.load(con, model.name_)                            # in another process
"""

import importlib
import warnings
from typing import TYPE_CHECKING, Any

from warehouse_ml.errors import (
    AllNullColumnsWarning,
    BatchAppliedError,
    ColumnConflictError,
    ColumnError,
    ConcurrentFitError,
    ConnectionStateError,
    CorruptModelError,
    DataError,
    DependentObjectError,
    Error,
    HighCardinalityError,
    HighCardinalityWarning,
    IncompatibleModelError,
    IntegerColumnsWarning,
    ModelError,
    ModelNotFoundError,
    NameConflictError,
    NotFittedError,
    NotSupportedError,
    ParameterError,
    SourceError,
    StaleModelError,
    TemplateError,
    ViewRebuildError,
    WarehouseMLError,
)
from warehouse_ml.version import VERSION as __version__

if TYPE_CHECKING:  # what the names below are, for type checkers; imported on first use
    from warehouse_ml import synthetic
    from warehouse_ml.api import (
        drop,
        drop_view,
        list_models,
        list_objects,
        load,
        rebuild_views,
        registered_views,
        vacuum,
    )
    from warehouse_ml.engines import connect
    from warehouse_ml.engines.base import Warehouse
    from warehouse_ml.engines.sources import Query, query
    from warehouse_ml.evaluation.crossval import Evaluation, cross_validate, evaluate
    from warehouse_ml.evaluation.k_nearest_selection import select_k
    from warehouse_ml.evaluation.loo import cross_validate_leave_one_out
    from warehouse_ml.evaluation.metrics import (
        accuracy,
        average_precision,
        averaged_measures,
        best_threshold,
        brier_score,
        calibration,
        class_measures,
        confusion_matrix,
        create_measure_view,
        expected_loss,
        lift_table,
        log_score,
        loss_decisions,
        measure_sql,
        ovr_auc,
        precision_recall_curve,
        roc_auc,
        roc_curve,
    )
    from warehouse_ml.evaluation.resampling import Resample, resample
    from warehouse_ml.evaluation.result import drop_evaluation, list_evaluations, load_evaluation
    from warehouse_ml.evaluation.selection import Candidate, Selection, select_model
    from warehouse_ml.evaluation.splits import Split, assign_folds, holdout_split, leave_one_out
    from warehouse_ml.models.inspection.evidence import EVERY_CLASS
    from warehouse_ml.models.inspection.relevance import pair_information, rank_attributes
    from warehouse_ml.models.learners.bayes.chow_liu import ChowLiuTree, chow_liu_tree
    from warehouse_ml.models.learners.bayes.naive_bayes import NaiveBayes
    from warehouse_ml.models.learners.bayes.tan import TAN
    from warehouse_ml.models.learners.linear.linear_discriminant import LinearDiscriminant
    from warehouse_ml.models.learners.linear.logistic_regression import LogisticRegression
    from warehouse_ml.models.learners.linear.svm.linear_svm import LinearSVM
    from warehouse_ml.models.learners.neighbors.k_nearest_neighbors import KNearestNeighbors
    from warehouse_ml.models.learners.tree.decision_tree import DecisionTree
    from warehouse_ml.progress import Progress, ProgressCallback

LAZY: dict[str, tuple[str, str | None]] = {
    "drop": ("warehouse_ml.api", "drop"),
    "drop_view": ("warehouse_ml.api", "drop_view"),
    "list_models": ("warehouse_ml.api", "list_models"),
    "list_objects": ("warehouse_ml.api", "list_objects"),
    "load": ("warehouse_ml.api", "load"),
    "rebuild_views": ("warehouse_ml.api", "rebuild_views"),
    "registered_views": ("warehouse_ml.api", "registered_views"),
    "vacuum": ("warehouse_ml.api", "vacuum"),
    "connect": ("warehouse_ml.engines", "connect"),
    "Warehouse": ("warehouse_ml.engines.base", "Warehouse"),
    "Query": ("warehouse_ml.engines.sources", "Query"),
    "query": ("warehouse_ml.engines.sources", "query"),
    "Evaluation": ("warehouse_ml.evaluation.crossval", "Evaluation"),
    "cross_validate": ("warehouse_ml.evaluation.crossval", "cross_validate"),
    "evaluate": ("warehouse_ml.evaluation.crossval", "evaluate"),
    "cross_validate_leave_one_out": ("warehouse_ml.evaluation.loo", "cross_validate_leave_one_out"),
    "accuracy": ("warehouse_ml.evaluation.metrics", "accuracy"),
    "average_precision": ("warehouse_ml.evaluation.metrics", "average_precision"),
    "averaged_measures": ("warehouse_ml.evaluation.metrics", "averaged_measures"),
    "best_threshold": ("warehouse_ml.evaluation.metrics", "best_threshold"),
    "brier_score": ("warehouse_ml.evaluation.metrics", "brier_score"),
    "calibration": ("warehouse_ml.evaluation.metrics", "calibration"),
    "class_measures": ("warehouse_ml.evaluation.metrics", "class_measures"),
    "confusion_matrix": ("warehouse_ml.evaluation.metrics", "confusion_matrix"),
    "create_measure_view": ("warehouse_ml.evaluation.metrics", "create_measure_view"),
    "expected_loss": ("warehouse_ml.evaluation.metrics", "expected_loss"),
    "lift_table": ("warehouse_ml.evaluation.metrics", "lift_table"),
    "log_score": ("warehouse_ml.evaluation.metrics", "log_score"),
    "loss_decisions": ("warehouse_ml.evaluation.metrics", "loss_decisions"),
    "measure_sql": ("warehouse_ml.evaluation.metrics", "measure_sql"),
    "ovr_auc": ("warehouse_ml.evaluation.metrics", "ovr_auc"),
    "precision_recall_curve": ("warehouse_ml.evaluation.metrics", "precision_recall_curve"),
    "roc_auc": ("warehouse_ml.evaluation.metrics", "roc_auc"),
    "roc_curve": ("warehouse_ml.evaluation.metrics", "roc_curve"),
    "Resample": ("warehouse_ml.evaluation.resampling", "Resample"),
    "resample": ("warehouse_ml.evaluation.resampling", "resample"),
    "drop_evaluation": ("warehouse_ml.evaluation.result", "drop_evaluation"),
    "list_evaluations": ("warehouse_ml.evaluation.result", "list_evaluations"),
    "load_evaluation": ("warehouse_ml.evaluation.result", "load_evaluation"),
    "Candidate": ("warehouse_ml.evaluation.selection", "Candidate"),
    "Selection": ("warehouse_ml.evaluation.selection", "Selection"),
    "select_model": ("warehouse_ml.evaluation.selection", "select_model"),
    "Split": ("warehouse_ml.evaluation.splits", "Split"),
    "assign_folds": ("warehouse_ml.evaluation.splits", "assign_folds"),
    "holdout_split": ("warehouse_ml.evaluation.splits", "holdout_split"),
    "leave_one_out": ("warehouse_ml.evaluation.splits", "leave_one_out"),
    "ChowLiuTree": ("warehouse_ml.models.learners.bayes.chow_liu", "ChowLiuTree"),
    "chow_liu_tree": ("warehouse_ml.models.learners.bayes.chow_liu", "chow_liu_tree"),
    "DecisionTree": ("warehouse_ml.models.learners.tree.decision_tree", "DecisionTree"),
    "EVERY_CLASS": ("warehouse_ml.models.inspection.evidence", "EVERY_CLASS"),
    "KNearestNeighbors": (
        "warehouse_ml.models.learners.neighbors.k_nearest_neighbors",
        "KNearestNeighbors",
    ),
    "LinearDiscriminant": (
        "warehouse_ml.models.learners.linear.linear_discriminant",
        "LinearDiscriminant",
    ),
    "LinearSVM": ("warehouse_ml.models.learners.linear.svm.linear_svm", "LinearSVM"),
    "LogisticRegression": (
        "warehouse_ml.models.learners.linear.logistic_regression",
        "LogisticRegression",
    ),
    "NaiveBayes": ("warehouse_ml.models.learners.bayes.naive_bayes", "NaiveBayes"),
    "pair_information": ("warehouse_ml.models.inspection.relevance", "pair_information"),
    "select_k": ("warehouse_ml.evaluation.k_nearest_selection", "select_k"),
    "rank_attributes": ("warehouse_ml.models.inspection.relevance", "rank_attributes"),
    "TAN": ("warehouse_ml.models.learners.bayes.tan", "TAN"),
    "Progress": ("warehouse_ml.progress", "Progress"),
    "ProgressCallback": ("warehouse_ml.progress", "ProgressCallback"),
    "synthetic": ("warehouse_ml.synthetic", None),
}
"""Each public name imported on first use: (module, attribute), or (module, None) for a
module. ``import warehouse_ml`` alone loads only the errors and the version, so the
``warehouse-ml`` command starts without DuckDB, Arrow, sqlglot or numpy."""

__all__ = [
    "EVERY_CLASS",
    "TAN",
    "AllNullColumnsWarning",
    "BatchAppliedError",
    "Candidate",
    "ChowLiuTree",
    "ColumnConflictError",
    "ColumnError",
    "ConcurrentFitError",
    "ConnectionStateError",
    "CorruptModelError",
    "DataError",
    "DecisionTree",
    "DependentObjectError",
    "Error",
    "Evaluation",
    "HighCardinalityError",
    "HighCardinalityWarning",
    "IncompatibleModelError",
    "IntegerColumnsWarning",
    "KNearestNeighbors",
    "LinearDiscriminant",
    "LinearSVM",
    "LogisticRegression",
    "ModelError",
    "ModelNotFoundError",
    "NaiveBayes",
    "NameConflictError",
    "NotFittedError",
    "NotSupportedError",
    "ParameterError",
    "Progress",
    "ProgressCallback",
    "Query",
    "Resample",
    "Selection",
    "SourceError",
    "Split",
    "StaleModelError",
    "TemplateError",
    "ViewRebuildError",
    "Warehouse",
    "WarehouseMLError",
    "__version__",
    "accuracy",
    "assign_folds",
    "average_precision",
    "averaged_measures",
    "best_threshold",
    "brier_score",
    "calibration",
    "chow_liu_tree",
    "class_measures",
    "confusion_matrix",
    "connect",
    "create_measure_view",
    "cross_validate",
    "cross_validate_leave_one_out",
    "drop",
    "drop_evaluation",
    "drop_view",
    "evaluate",
    "expected_loss",
    "holdout_split",
    "leave_one_out",
    "lift_table",
    "list_evaluations",
    "list_models",
    "list_objects",
    "load",
    "load_evaluation",
    "log_score",
    "loss_decisions",
    "measure_sql",
    "ovr_auc",
    "pair_information",
    "precision_recall_curve",
    "query",
    "rank_attributes",
    "rebuild_views",
    "registered_views",
    "resample",
    "roc_auc",
    "roc_curve",
    "select_k",
    "select_model",
    "synthetic",
    "vacuum",
]


def __getattr__(name: str) -> Any:
    """The public name ``name``, imported on first use (PEP 562) and kept in the module;
    ``leave_one_out_cv``, the former name of :func:`cross_validate_leave_one_out`, with a
    DeprecationWarning (``leave_one_out`` is the leave-one-out *split*)."""
    if name == "leave_one_out_cv":
        warnings.warn(
            "warehouse_ml.leave_one_out_cv is deprecated: use "
            "warehouse_ml.cross_validate_leave_one_out (warehouse_ml.leave_one_out makes a "
            "leave-one-out split table)",
            DeprecationWarning,
            stacklevel=2,
        )
        return __getattr__("cross_validate_leave_one_out")
    if name not in LAZY:
        raise AttributeError(f"module 'warehouse_ml' has no attribute {name!r}")
    module, attribute = LAZY[name]
    value = importlib.import_module(module)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
