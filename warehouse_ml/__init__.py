"""warehouse-ml: Naive Bayes and TAN classifiers learned, scored and evaluated inside the warehouse.

Public API::

    import warehouse_ml as wml
    model = wml.NaiveBayes(alpha=1.0).fit(con, "sales.customers", target="churned")
    model.predict_proba(con, "sales.new_customers")       # Arrow table, one column per class
    model.create_view(con, "sales.churn_scores", "sales.new_customers", keys=["id"])
    wml.load(con, model.name_)                            # in another process
"""

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
    ColumnConflictError,
    ColumnError,
    ConcurrentFitError,
    ConnectionStateError,
    CorruptModelError,
    DataError,
    IncompatibleModelError,
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
from warehouse_ml.evaluation.loo import leave_one_out as leave_one_out_cv
from warehouse_ml.evaluation.metrics import (
    accuracy,
    average_precision,
    averaged_measures,
    brier_score,
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
from warehouse_ml.evaluation.result import drop_evaluation, list_evaluations, load_evaluation
from warehouse_ml.evaluation.selection import Candidate, Selection, select_model
from warehouse_ml.evaluation.splits import Split, assign_folds, holdout_split, leave_one_out
from warehouse_ml.models.chow_liu import ChowLiuTree, chow_liu_tree
from warehouse_ml.models.naive_bayes import NaiveBayes
from warehouse_ml.models.tan import TAN
from warehouse_ml.progress import Progress, ProgressCallback
from warehouse_ml.version import VERSION as __version__

__all__ = [
    "TAN",
    "Candidate",
    "ChowLiuTree",
    "ColumnConflictError",
    "ColumnError",
    "ConcurrentFitError",
    "ConnectionStateError",
    "CorruptModelError",
    "DataError",
    "Evaluation",
    "IncompatibleModelError",
    "ModelNotFoundError",
    "NaiveBayes",
    "NameConflictError",
    "NotFittedError",
    "ParameterError",
    "Progress",
    "ProgressCallback",
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
    "brier_score",
    "chow_liu_tree",
    "class_measures",
    "confusion_matrix",
    "connect",
    "create_measure_view",
    "cross_validate",
    "drop",
    "drop_evaluation",
    "drop_view",
    "evaluate",
    "expected_loss",
    "holdout_split",
    "leave_one_out",
    "leave_one_out_cv",
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
    "precision_recall_curve",
    "rebuild_views",
    "registered_views",
    "roc_auc",
    "roc_curve",
    "select_model",
    "synthetic",
    "vacuum",
]
