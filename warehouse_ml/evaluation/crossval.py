"""Cross-validation and hold-out evaluation inside the warehouse.

:func:`cross_validate` assigns folds (splits.py), learns every fold's model, scores each fold's
rows with the model that did not see them, and writes the pooled out-of-fold predictions to one
table. Naive Bayes, and TAN over categorical attributes, learn all folds from ONE count scan
grouped by fold: each fold's training counts are the per-fold counts of the other folds summed
(total minus that fold), every fold's parameters are written by the same statements into
tables with a wml_part column, and ONE query scores every row with its own fold's model, so
10-fold CV costs the fold assignment plus about one fit and one scoring pass, not ten fits.
A decision tree grows every fold's tree in the same statements, one count per level keyed by
(fold, node), each row counted for every fold that trains on it, and scores every fold in one
query too.
Model kinds without that shortcut (those that do not declare
:class:`~warehouse_ml.models.capabilities.FoldsAtOnce`) or attributes it excludes (TAN with
numeric attributes) fall back to one fit and one scoring statement per fold. What a run
decides before any table is planning.py's; the folds' models and the pooled predictions are
out_of_fold.py's, which model selection (selection.py) runs on a shared fold assignment too.

The predictions table has the columns: the key, ``fold`` (INTEGER), the target column,
``p_<label>`` per class (DOUBLE) and ``prediction``; it is the input of every measure in
the metrics package (evaluation/metrics/), which :class:`Evaluation` exposes as methods. It
belongs to the evaluation (evaluation/result.py): temporary unless ``keep=True``. The fold
assignment and every fold's model are temporary tables of the call, dropped before it
returns. The fold column of the
assignment is the library's own (a name no source column has), so a source column named
``fold`` is just another column.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence

import pyarrow as pa

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.evaluation import splits
from warehouse_ml.evaluation.loo import leave_one_out_open
from warehouse_ml.evaluation.out_of_fold import (
    assign_once,
    cross_validate_planned,
    result_tables,
    unwritten,
    work_tables,
    writer,
    written,
)
from warehouse_ml.evaluation.planning import (
    check_reusable,
    plan_evaluation,
    reused_key,
    uses_exact_leave_one_out,
)
from warehouse_ml.evaluation.result import Evaluation, settings
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.scoring.names import PREDICTION
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.sqlgen import templates
from warehouse_ml.store import catalog

__all__ = ["Evaluation", "cross_validate", "evaluate"]


def cross_validate(
    con: Connectable,
    source: SourceLike,
    target: str,
    model: Classifier,
    *,
    folds: int | splits.Split = 10,
    stratified: bool = True,
    seed: int = 0,
    key: str | None = None,
    features: Sequence[str] | str | None = None,
    categorical: Iterable[str] | None = None,
    numeric: Iterable[str] | None = None,
    keep: bool = False,
    allow_high_cardinality: bool = False,
    progress: ProgressCallback | None = None,
    sample_weight: str | None = None,
    weighted_measures: bool = False,
) -> Evaluation:
    """k-fold cross-validation of an (unfitted) model, pooled out-of-fold predictions in SQL.

    Args:
        con: a DuckDB connection, a database path, or a Warehouse.
        source: table/view name, Arrow table, or a Parquet/CSV path.
        target: the class column (rows with a NULL target are left out).
        model: a model object with its settings, e.g. ``NaiveBayes(alpha=1)``; it is not fitted.
        folds: k >= 2. k = the number of source rows is leave-one-out: for a kind declaring
            ExactLeaveOneOut (Naive Bayes) it is computed by :func:`leave_one_out` (exact, one
            scoring query; ``stratified`` and ``seed`` do not change its predictions), for
            other kinds by k fits. Or a fold assignment to reuse
            (:func:`warehouse_ml.assign_folds` with ``keep_columns=True`` on this source):
            its rows, folds, seed, key and stratification are used, so several
            cross-validations share one assignment (the most expensive step of a Naive Bayes
            CV); ``stratified`` and ``seed`` do not apply, and the assignment is
            left in place.
        stratified: keep each class's proportion in every fold (within one row).
        seed: fold assignment seed (same seed and keys, same folds, on every engine).
        key: a unique integer or string column; None numbers the rows in scan order.
        features, categorical, numeric: as for ``fit``; or ``features="top:k"``: each fold
            keeps the k attributes of highest MI with the class over its own training rows
            (:func:`warehouse_ml.rank_attributes`, no leakage from the held-out fold), of
            every column but the target and the key (``categorical`` / ``numeric`` still
            declare how each is treated).
        keep: keep the predictions in schema ``wml`` after the connection closes (see
            :func:`warehouse_ml.list_evaluations`); by default they are temporary.
        allow_high_cardinality: as for ``fit``; the attributes' distinct values in all folds
            together are checked before anything heavier than the fold counts.
        progress: called with a :class:`warehouse_ml.progress.Progress` (operation
            ``"cross_validate"``) before each statement; it may raise to cancel.
        sample_weight: as for ``fit``: each fold's model counts its training rows' weights
            (times the model's ``class_weight``, whose "balanced" weights come from all the
            source's rows); the measures count every held-out row once, unless
            ``weighted_measures``: the predictions then carry the sample weight (column
            ``weight``) and every measure counts each row as its weight (scikit-learn's
            metrics with ``sample_weight``).

    Returns:
        An :class:`Evaluation` over the pooled predictions (columns: key, fold, target,
        p_<label> per class, prediction). Drop it (``Evaluation.drop`` or a ``with`` block)
        to remove its tables at once.
    """
    with session(con, "cross_validate", progress) as warehouse:
        if isinstance(source, pa.RecordBatchReader):
            source = source.read_all()
        reused = folds if isinstance(folds, splits.Split) else None
        if reused is None:
            folds = splits.check_folds(folds)
        with open_source(warehouse, source) as src:
            if reused is not None:
                key = reused_key(src, reused, key)
            selection = {"features": features, "categorical": categorical, "numeric": numeric}
            plan = plan_evaluation(
                warehouse, src, target, model, key, selection, keep, allow_high_cardinality,
                sample_weight, weighted_measures,
            )  # fmt: skip
            if reused is not None:
                check_reusable(warehouse, reused, target, plan)
            k = reused.folds if reused is not None else folds
            if uses_exact_leave_one_out(model, k, plan):
                return leave_one_out_open(
                    warehouse, src, target, model, key=key, keep=keep, created_by="cross_validate",
                    described=settings(model), **plan.selection,
                )  # fmt: skip
            if reused is not None:
                return cross_validate_planned(
                    warehouse, src, reused, target, model, plan, "cross_validate", settings(model)
                )
            with work_tables(warehouse, plan.cv_id, "cross_validate") as work:
                try:
                    split = assign_once(warehouse, src, target, folds, stratified, seed, key, work)
                    return cross_validate_planned(
                        warehouse, src, split, target, model, plan, "cross_validate",
                        settings(model), reused=False,
                    )  # fmt: skip
                finally:
                    work.drop()


def evaluate(
    con: Connectable,
    model: Classifier,
    source: SourceLike,
    *,
    keys: Sequence[str] = (),
    keep: bool = False,
    progress: ProgressCallback | None = None,
) -> Evaluation:
    """Hold-out evaluation of a fitted model on ``source`` (which holds the target column).

    The predictions (``keys`` columns, the target, p_<label> per class, prediction) are written
    to a table of the returned evaluation (temporary unless ``keep=True``); rows with a NULL
    target are left out. ``progress`` is called before each statement (operation
    ``"evaluate"``) and may raise to cancel.
    """
    keys = list(keys)
    with session(con, "evaluate", progress) as warehouse:
        target = model.record.target
        with open_source(warehouse, source) as src, model._current(warehouse) as record:
            src.field(target)
            probability_names = model.probability_names(warehouse)
            names.check_outputs([*keys, target], [*probability_names, PREDICTION], src.description)
            rows = templates.build("select_rows_with_target", source=src.relation, target=target)
            labelled = Source(rows.subquery("wml_labelled"), src.schema, src.description, False)
            query = model.scoring_query(
                ScoringContext(warehouse), record, labelled,
                passthrough=[(c, c) for c in [*keys, target]],
                probability_names=probability_names, prediction_name=PREDICTION,
            )  # fmt: skip
            catalog.ensure(warehouse)
            evaluation_id = f"ev{uuid.uuid4().hex[:12]}"
            subject = (
                f"Hold-out evaluation of model {record.name!r} ({record.kind}) on {src.description}"
            )
            with result_tables(warehouse, evaluation_id, keep, "evaluate") as results:
                draft = unwritten(
                    warehouse, results, target, tuple(model.classes_),
                    keys[0] if keys else None, 1, None, probability_names, keep, subject,
                )  # fmt: skip
                return written(warehouse, results, writer(warehouse, query), draft)
