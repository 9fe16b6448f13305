"""Cross-validation and hold-out evaluation inside the warehouse.

:func:`cross_validate` assigns folds (splits.py), learns every fold's model, scores each fold's
rows with the model that did not see them, and writes the pooled out-of-fold predictions to one
table. Naive Bayes, and TAN over categorical attributes, learn all folds from ONE count scan
grouped by fold: each fold's training counts are the per-fold counts of the other folds summed
(total minus that fold), every fold's parameters are written by the same statements into
tables with a wml_part column, and ONE query scores every row with its own fold's model, so
10-fold CV costs the fold assignment plus about one fit and one scoring pass, not ten fits.
Model kinds or attributes without that shortcut (TAN with numeric attributes) fall back to one
fit and one scoring statement per fold.

The predictions table (``wml.<cv_id>_predictions``) has the columns: the key, ``fold``
(INTEGER), the target column, ``p_<label>`` per class (DOUBLE) and ``prediction``; it is the
input of every measure in metrics.py, which :class:`Evaluation` exposes as methods.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml import catalog, splits, templates
from warehouse_ml.catalog import ModelRecord
from warehouse_ml.errors import ColumnError, ParameterError
from warehouse_ml.evaluation import FOLD, Evaluation
from warehouse_ml.features import select_features
from warehouse_ml.loo import leave_one_out
from warehouse_ml.model import Classifier
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.sources import Source, SourceLike, open_source
from warehouse_ml.templates import TableName
from warehouse_ml.validation import CardinalityCheck
from warehouse_ml.warehouse import Connectable, Warehouse, connect


def _fold_classes(
    warehouse: Warehouse, split: Source, target: str, classes: list[dict[str, Any]], folds: int
) -> list[list[dict[str, Any]]]:
    """Each fold's training class counts: the class totals minus that fold's rows."""
    rows = warehouse.fetch("select_fold_classes", source=split.relation, target=target, fold=FOLD)
    held_out = {(r["fold"], r["class_label"]): r["n"] for r in rows.to_pylist()}
    return [
        [{**c, "n": c["n"] - held_out.get((f, c["class_label"]), 0)} for c in classes]
        for f in range(folds)
    ]


def _record(
    model: Classifier, model_id: str, target: str, src: Source, features, classes, details
) -> ModelRecord:
    """An uncatalogued record describing one fold's model (its tables exist under model_id)."""
    return ModelRecord(
        name=model_id,
        model_id=model_id,
        kind=model.kind,
        target=target,
        target_type=str(src.field(target).type),
        features=[f.name for f in features],
        feature_types={f.name: f.to_json() for f in features},
        smoothing=model._smoothing(),
        source=src.description,
        n_rows=sum(c["n"] for c in classes),
        n_null_target=0,
        classes=[c["value"] for c in classes],
        details=details,
    )


def _score_folds_together(
    warehouse: Warehouse,
    model: Classifier,
    split: splits.Split,
    split_source: Source,
    target: str,
    features: list,
    classes: list[dict[str, Any]],
    fold_classes: list[list[dict[str, Any]]],
    model_id: str,
    created: list[TableName],
    check: CardinalityCheck,
) -> exp.Query:
    """One query scoring every fold: the model learns all folds' parameters into one set of
    tables (column wml_part = fold), and each row joins the parameters of its own fold."""
    details = model._learn_partitioned(
        warehouse, split_source, target, features, FOLD, fold_classes, model_id, created, check
    )
    record = _record(
        model, model_id, target, split_source, features, classes,
        {**details, "partition_column": FOLD},
    )  # fmt: skip
    rows = templates.build("select_rows_with_target", source=split.table, target=target)
    labelled = Source(rows.subquery("wml_labelled"), split_source.schema, str(split.table), True)
    return (
        type(model)
        .from_record(record)
        .view_query(warehouse, labelled, keys=[split.key, FOLD, target])
    )


def _score_folds_apart(
    warehouse: Warehouse,
    model: Classifier,
    split: splits.Split,
    split_source: Source,
    target: str,
    features: list,
    fold_classes: list[list[dict[str, Any]]],
    model_ids: list[str],
    details: list[dict[str, Any]],
    predictions: TableName,
) -> None:
    """One statement per fold, each scoring its held-out rows with its own model."""
    for index, model_id in enumerate(model_ids):
        record = _record(
            model, model_id, target, split_source, features, fold_classes[index], details[index]
        )
        rows = templates.build(
            "select_rows_of_fold", split=split.table, fold=FOLD, index=index, target=target
        )
        held_out = Source(
            rows.subquery("wml_fold_rows"), split_source.schema, str(split.table), True
        )
        query = (
            type(model)
            .from_record(record)
            .view_query(warehouse, held_out, keys=[split.key, FOLD, target])
        )
        if index == 0:
            warehouse.run_tree(templates.create_table_as(predictions, query))
        else:
            warehouse.run("insert_rows", table=predictions, rows=query)


def _drop(warehouse: Warehouse, tables: Iterable[TableName]) -> None:
    for table in tables:
        warehouse.run("drop_table", table=table)


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
    features: Sequence[str] | None = None,
    categorical: Iterable[str] | None = None,
    numeric: Iterable[str] | None = None,
    allow_high_cardinality: bool = False,
    progress: ProgressCallback | None = None,
) -> Evaluation:
    """k-fold cross-validation of an (unfitted) model, pooled out-of-fold predictions in SQL.

    Args:
        con: a DuckDB connection, a database path, or a Warehouse.
        source: table/view name, Arrow table, or a Parquet/CSV path.
        target: the class column (rows with a NULL target are left out).
        model: a model object with its settings, e.g. ``NaiveBayes(alpha=1)``; it is not fitted.
        folds: k >= 2. k = the number of source rows is leave-one-out: for NaiveBayes it is
            computed by :func:`leave_one_out` (exact, one scoring query; ``stratified`` and
            ``seed`` do not change its predictions), for other kinds by k fits. Or a fold
            assignment to reuse (:func:`warehouse_ml.assign_folds` with ``keep_columns=True``
            on this source): its rows, folds, seed, key and stratification are used, so
            several cross-validations share one assignment (the most expensive step of a
            Naive Bayes CV); ``stratified`` and ``seed`` do not apply, and the assignment is
            left in place.
        stratified: keep each class's proportion in every fold (within one row).
        seed: fold assignment seed (same seed and keys, same folds, on every engine).
        key: a unique integer or string column; None numbers the rows in scan order.
        features, categorical, numeric: as for ``fit``.
        allow_high_cardinality: as for ``fit``; TAN checks the attributes' distinct values in
            all folds together before counting pairs (Naive Bayes cross-validation does not
            check).
        progress: called with a :class:`warehouse_ml.progress.Progress` (operation
            ``"cross_validate"``) before each statement; it may raise to cancel.

    Returns:
        An :class:`Evaluation` over the pooled predictions table ``wml.<cv_id>_predictions``
        (columns: key, fold, target, p_<label> per class, prediction); the fold assignment stays
        in ``wml.<cv_id>_folds`` (or the given one).
    """
    warehouse = connect(con)
    with warehouse.operation("cross_validate", progress):
        if isinstance(source, pa.RecordBatchReader):
            source = source.read_all()
        reused = folds if isinstance(folds, splits.Split) else None
        if reused is not None:
            key = _reused_key(warehouse, source, reused, key)
        selection = {"features": features, "categorical": categorical, "numeric": numeric}
        plan = _plan(warehouse, source, target, model, key, selection, allow_high_cardinality)
        if reused is not None:
            _check_reusable(warehouse, reused, target, plan)
        evaluation, _ = _run(warehouse, source, target, model, plan, folds, stratified, seed, key)
        return evaluation


def _reused_key(
    warehouse: Warehouse, source: SourceLike, split: splits.Split, key: str | None
) -> str | None:
    """The source's key column for a cross-validation on ``split`` (None when the assignment
    numbered the rows itself); refuses a hold-out split and a key other than the split's."""
    if split.kind != "folds":
        raise ParameterError(
            f"folds={split.table} is a {split.kind} split; expected a k-fold assignment "
            "(assign_folds)"
        )
    if key is not None and key != split.key:
        raise ParameterError(
            f"key={key!r} differs from the key {split.key!r} of the fold assignment "
            f"{split.table}; leave key out to use the assignment's"
        )
    with open_source(warehouse, source) as src:
        return split.key if split.key in src.columns else None


def _check_reusable(warehouse: Warehouse, split: splits.Split, target: str, plan: _Plan) -> None:
    """The fold table must hold the key, the folds, the target and every chosen feature."""
    needed = [split.key, FOLD, target, *(f.name for f in plan.features)]
    held = set(warehouse.schema_of(split.table).names)
    missing = [c for c in needed if c not in held]
    if missing:
        raise ColumnError(
            f"fold assignment {split.table} has no columns {missing}; expected the source's "
            "columns next to the folds (assign_folds(..., keep_columns=True))"
        )


def _run(
    warehouse: Warehouse,
    source: SourceLike,
    target: str,
    model: Classifier,
    plan: _Plan,
    folds: int | splits.Split,
    stratified: bool,
    seed: int,
    key: str | None,
) -> tuple[Evaluation, splits.Split | None]:
    """Cross-validate on the fold assignment ``folds``, or on k folds assigned here (dropped
    again if the run fails); k = n for Naive Bayes is the exact leave-one-out of loo.py, with
    no fold table. Returns the evaluation and the fold assignment it used."""
    k = folds.folds if isinstance(folds, splits.Split) else folds
    if k == plan.n_rows and model.kind == "naive_bayes":
        # k = n is leave-one-out: Naive Bayes has an exact closed form (loo.py), one query
        return leave_one_out(warehouse, source, target, model, key=key, **plan.selection), None
    if isinstance(folds, splits.Split):
        return _cross_validate(warehouse, folds, target, model, plan), folds
    split = _assign(warehouse, source, target, folds, stratified, seed, key, plan.cv_id)
    try:
        return _cross_validate(warehouse, split, target, model, plan), split
    except BaseException:  # failed or interrupted: the fold table goes too
        _drop(warehouse, [split.table])
        raise


@dataclass(frozen=True)
class _Plan:
    """What one cross-validation needs besides its folds: an id for its tables, the feature
    arguments as given (``selection``: features, categorical, numeric), the features chosen
    from them, the class counts, the number of source rows (NULL targets included) and the
    high-cardinality check of the source."""

    cv_id: str
    selection: dict[str, Any]
    features: list
    classes: list[dict[str, Any]]
    n_rows: int
    check: CardinalityCheck


def _plan(
    warehouse: Warehouse,
    source: SourceLike,
    target: str,
    model: Classifier,
    key: str | None,
    selection: dict[str, Any],
    allow_high_cardinality: bool = False,
) -> _Plan:
    catalog.ensure(warehouse)
    with open_source(warehouse, source) as src:
        chosen = select_features(src, target, keys=[key] if key else None, **selection)
        classes, n_null = model._classes(warehouse, src, target)
    n_labelled = sum(c["n"] for c in classes)
    check = CardinalityCheck(
        src.description, chosen, n_labelled, allow_high_cardinality=allow_high_cardinality
    )
    return _Plan(
        f"cv{uuid.uuid4().hex[:12]}", selection, chosen, classes, n_labelled + n_null, check
    )


def _assign(
    warehouse: Warehouse, source, target, folds, stratified, seed, key, cv_id: str
) -> splits.Split:
    """The fold assignment of a cross-validation, every source column kept
    (``wml.<cv_id>_folds``)."""
    return splits.assign_folds(
        warehouse, source, folds=folds, seed=seed, key=key,
        stratify=target if stratified else None,
        table=catalog.parameter_table(cv_id, "folds"), keep_columns=True,
    )  # fmt: skip


def _cross_validate(
    warehouse: Warehouse, split: splits.Split, target: str, model: Classifier, plan: _Plan
) -> Evaluation:
    """Learn every fold's model from the rows of ``split`` (a fold table holding every source
    column) and write the pooled out-of-fold predictions (``wml.<cv_id>_predictions``)."""
    table = split.table
    assert split.folds is not None, "a k-fold assignment"
    k = split.folds
    created: list[TableName] = []
    predictions = catalog.parameter_table(plan.cv_id, "predictions")
    chosen, classes = plan.features, plan.classes
    try:
        split_source = Source(table.to_table(), warehouse.schema_of(table), str(table), True)
        fold_classes = _fold_classes(warehouse, split_source, target, classes, k)
        if model._partitioned_scoring(chosen):
            query = _score_folds_together(
                warehouse, model, split, split_source, target, chosen, classes, fold_classes,
                f"{plan.cv_id}_all", created, plan.check,
            )  # fmt: skip
            warehouse.run_tree(templates.create_table_as(predictions, query))
        else:
            model_ids = [f"{plan.cv_id}_f{f}" for f in range(k)]
            details = model._learn_folds(
                warehouse, split_source, target, chosen, FOLD, fold_classes, model_ids, created,
                plan.check,
            )  # fmt: skip
            _score_folds_apart(
                warehouse, model, split, split_source, target, chosen, fold_classes, model_ids,
                details, predictions,
            )  # fmt: skip
    except BaseException:  # failed or interrupted: no result table stays behind either
        _drop(warehouse, [predictions])
        raise
    finally:
        _drop(warehouse, created)
    return Evaluation(
        warehouse, predictions, target, tuple(c["value"] for c in classes), split.key, k, table
    )


def evaluate(
    con: Connectable,
    model: Classifier,
    source: SourceLike,
    *,
    keys: Sequence[str] = (),
    progress: ProgressCallback | None = None,
) -> Evaluation:
    """Hold-out evaluation of a fitted model on ``source`` (which holds the target column).

    The predictions (``keys`` columns, the target, p_<label> per class, prediction) are written
    to ``wml.<ev_id>_predictions``; rows with a NULL target are left out. ``progress`` is
    called before each statement (operation ``"evaluate"``) and may raise to cancel.
    """
    warehouse = connect(con)
    with warehouse.operation("evaluate", progress):
        target = model.record.target
        predictions = catalog.parameter_table(f"ev{uuid.uuid4().hex[:12]}", "predictions")
        with open_source(warehouse, source) as src:
            src.field(target)
            rows = templates.build("select_rows_with_target", source=src.relation, target=target)
            labelled = Source(
                rows.subquery("wml_labelled"), src.schema, src.description, src.durable
            )
            query = model.view_query(warehouse, labelled, keys=[*keys, target])
            warehouse.run_tree(templates.create_table_as(predictions, query))
        return Evaluation(
            warehouse, predictions, target, tuple(model.classes_), keys[0] if keys else None, 1
        )


@dataclass(frozen=True)
class Candidate:
    """One setting to compare in :func:`select_model`: a model object and its feature choice."""

    model: Classifier
    features: Sequence[str] | None = None
    categorical: Sequence[str] | None = None
    numeric: Sequence[str] | None = None

    def describe(self) -> str:
        """A readable one-line description, e.g. ``NaiveBayes(alpha=1.0, ...) features=all``."""
        settings = ", ".join(f"{k}={v!r}" for k, v in self.model._smoothing().items())
        features = "all" if self.features is None else ",".join(self.features)
        return f"{type(self.model).__name__}({settings}) features={features}"


MEASURES = {
    "error": (lambda ev, _: ev.accuracy().error, False),
    "log_score": (lambda ev, _: ev.log_score().mean, False),
    "brier": (lambda ev, _: ev.brier_score().mean, False),
    "auc": (
        lambda ev, positive: (
            ev.auc(positive).auc if len(ev.classes) == 2 else ev.ovr_auc().macro_auc
        ),
        True,
    ),
    "expected_loss": (lambda ev, loss: ev.expected_loss(loss).decision_loss, False),
}
"""Selection measures: name -> (function of an Evaluation, larger is better)."""


@dataclass(frozen=True)
class Selection:
    """Outcome of :func:`select_model`: the refitted best model and the comparison.

    ``comparison`` columns: candidate (INTEGER, input order), description (VARCHAR), kind,
    measure (VARCHAR name), value (DOUBLE), accuracy (DOUBLE), chosen (BOOLEAN). It is also
    stored as table ``table`` and named in the chosen model's catalog details.
    """

    model: Classifier
    comparison: pa.Table
    table: TableName


def select_model(
    con: Connectable,
    source: SourceLike,
    target: str,
    candidates: Sequence[Classifier | Candidate],
    *,
    measure: str = "error",
    folds: int = 10,
    stratified: bool = True,
    seed: int = 0,
    key: str | None = None,
    positive: Any = None,
    loss: Sequence[Sequence[float]] | None = None,
    name: str | None = None,
    progress: ProgressCallback | None = None,
) -> Selection:
    """Compare candidate settings by cross-validation on the same folds, refit the best on all
    rows (stored as model ``name``) and keep the comparison table in schema ``wml``.

    ``measure`` is one of error, log_score, brier (smaller is better), auc (binary: of
    ``positive``; multiclass: macro one-vs-rest) or expected_loss (needs ``loss``). Ties go to
    the earlier candidate. ``progress`` is called before each statement of every step
    (operation ``"select_model"``) and may raise to cancel.
    """
    if measure not in MEASURES:
        raise ParameterError(f"measure must be one of {sorted(MEASURES)}, got {measure!r}")
    if measure == "expected_loss" and loss is None:
        raise ParameterError("measure='expected_loss' needs a loss matrix: loss=[[...], ...]")
    if not candidates:
        raise ParameterError("select_model needs at least one candidate")
    warehouse = connect(con)
    with warehouse.operation("select_model", progress):
        if isinstance(source, pa.RecordBatchReader):  # read by every candidate and the refit
            source = source.read_all()
        score, larger_is_better = MEASURES[measure]
        argument = loss if measure == "expected_loss" else positive
        chosen = [c if isinstance(c, Candidate) else Candidate(c) for c in candidates]
        shared: splits.Split | None = None  # one fold assignment serves every candidate
        rows = []
        try:
            for index, candidate in enumerate(chosen):
                selection = {
                    "features": candidate.features,
                    "categorical": candidate.categorical,
                    "numeric": candidate.numeric,
                }
                plan = _plan(warehouse, source, target, candidate.model, key, selection)
                ev, used = _run(
                    warehouse, source, target, candidate.model, plan, shared or folds,
                    stratified, seed, key,
                )  # fmt: skip
                shared = shared or used
                value = float(score(ev, argument))
                rows.append(
                    [
                        index,
                        candidate.describe(),
                        candidate.model.kind,
                        measure,
                        value,
                        ev.accuracy().accuracy,
                    ]
                )
                _drop(warehouse, [ev.predictions])  # ev.split is the shared table or None
        finally:
            if shared is not None:
                _drop(warehouse, [shared.table])
        values = [r[4] for r in rows]
        best = values.index(max(values) if larger_is_better else min(values))
        for r in rows:
            r.append(r[0] == best)
        columns = ("candidate", "description", "kind", "measure", "value", "accuracy", "chosen")
        table = catalog.parameter_table(f"sel{uuid.uuid4().hex[:12]}", "comparison")
        warehouse.run_tree(
            templates.create_table_as(
                table, exp.select(exp.Star()).from_(templates.values(rows, "r", columns))
            )
        )
        winner = chosen[best]
        model = type(winner.model)(**winner.model._smoothing()).fit(
            warehouse, source, target, features=winner.features, categorical=winner.categorical,
            numeric=winner.numeric, keys=[key] if key else None, name=name,
            details={"selection": list(table.parts)},
        )  # fmt: skip
        comparison = pa.Table.from_pylist([dict(zip(columns, r, strict=True)) for r in rows])
        return Selection(model, comparison, table)
