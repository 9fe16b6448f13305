"""warehouse-ml: Naive Bayes and TAN classifiers learned, scored and evaluated inside the warehouse.

Public API::

    import warehouse_ml as wml
    model = wml.NaiveBayes(alpha=1.0).fit(con, "sales.customers", target="churned")
    model.predict_proba(con, "sales.new_customers")       # Arrow table, one column per class
    model.create_view(con, "sales.churn_scores", "sales.new_customers", keys=["id"])
    wml.load(con, model.name_)                            # in another process
"""

import warnings
from typing import Any

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
from warehouse_ml.errors import (
    BatchAppliedError,
    ColumnConflictError,
    ColumnError,
    ConcurrentFitError,
    ConnectionStateError,
    CorruptModelError,
    DataError,
    HighCardinalityError,
    HighCardinalityWarning,
    IncompatibleModelError,
    IntegerColumnsWarning,
    ModelNotFoundError,
    NameConflictError,
    NotFittedError,
    ParameterError,
    SourceError,
    StaleModelError,
    TemplateError,
    ViewRebuildError,
    WarehouseMLError,
)
from warehouse_ml.evaluation.crossval import Evaluation, cross_validate, evaluate
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
from warehouse_ml.models.chow_liu import ChowLiuTree, chow_liu_tree
from warehouse_ml.models.evidence import EVERY_CLASS
from warehouse_ml.models.naive_bayes import NaiveBayes
from warehouse_ml.models.relevance import pair_information, rank_attributes
from warehouse_ml.models.tan import TAN
from warehouse_ml.progress import Progress, ProgressCallback
from warehouse_ml.version import VERSION as __version__

__all__ = [
    "EVERY_CLASS",
    "TAN",
    "BatchAppliedError",
    "Candidate",
    "ChowLiuTree",
    "ColumnConflictError",
    "ColumnError",
    "ConcurrentFitError",
    "ConnectionStateError",
    "CorruptModelError",
    "DataError",
    "Evaluation",
    "HighCardinalityError",
    "HighCardinalityWarning",
    "IncompatibleModelError",
    "IntegerColumnsWarning",
    "ModelNotFoundError",
    "NaiveBayes",
    "NameConflictError",
    "NotFittedError",
    "ParameterError",
    "Progress",
    "ProgressCallback",
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
    "rank_attributes",
    "rebuild_views",
    "registered_views",
    "resample",
    "roc_auc",
    "roc_curve",
    "select_model",
    "synthetic",
    "vacuum",
]


def __getattr__(name: str) -> Any:
    """``leave_one_out_cv``, the former name of :func:`cross_validate_leave_one_out`, with a
    DeprecationWarning (``leave_one_out`` is the leave-one-out *split*)."""
    if name == "leave_one_out_cv":
        warnings.warn(
            "warehouse_ml.leave_one_out_cv is deprecated: use "
            "warehouse_ml.cross_validate_leave_one_out (warehouse_ml.leave_one_out makes a "
            "leave-one-out split table)",
            DeprecationWarning,
            stacklevel=2,
        )
        return cross_validate_leave_one_out
    raise AttributeError(f"module 'warehouse_ml' has no attribute {name!r}")
