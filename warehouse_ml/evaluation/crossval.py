"""Cross-validation and hold-out evaluation inside the warehouse.

:func:`cross_validate` assigns folds (splits.py), learns every fold's model, scores each fold's
rows with the model that did not see them, and writes the pooled out-of-fold predictions to one
table. Naive Bayes, and TAN over categorical attributes, learn all folds from ONE count scan
grouped by fold: each fold's training counts are the per-fold counts of the other folds summed
(total minus that fold), every fold's parameters are written by the same statements into
tables with a wml_part column, and ONE query scores every row with its own fold's model, so
10-fold CV costs the fold assignment plus about one fit and one scoring pass, not ten fits.
Model kinds without that shortcut (those that do not declare
:class:`~warehouse_ml.models.capabilities.FoldsAtOnce`) or attributes it excludes (TAN with
numeric attributes) fall back to one fit and one scoring statement per fold.

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

import dataclasses
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import ColumnError, ParameterError
from warehouse_ml.evaluation import splits
from warehouse_ml.evaluation.loo import leave_one_out_open
from warehouse_ml.evaluation.result import PREDICTIONS, UNWRITTEN, Evaluation, settings
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import ExactLeaveOneOut, folds_at_once
from warehouse_ml.models.inspection import relevance
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.names import FOLD, PREDICTION, WEIGHT, probability_columns
from warehouse_ml.models.training import (
    ClassCount,
    Training,
    class_counts,
    labelled_classes,
    total,
)
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats import counting, weights
from warehouse_ml.stats.features import CATEGORICAL, Feature
from warehouse_ml.stats.integer_rule import as_declared
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store import catalog, ownership
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging


def _fold_classes(
    warehouse: Warehouse,
    split: splits.Split,
    relation: exp.Expression,
    target: str,
    classes: list[ClassCount],
    weight: str | None,
) -> list[list[ClassCount]]:
    """Each fold's training class counts: the class totals minus that fold's (``relation``:
    the fold table, with the ``weight`` column of a weighted cross-validation)."""
    rows = warehouse.fetch(
        "select_fold_classes", source=relation, target=target, fold=split.fold_column,
        count=counting.row_count(weight),
    ).to_pylist()  # fmt: skip
    held_out = {(r["fold"], r["class_label"]): r for r in rows}
    assert split.folds is not None, "a k-fold assignment"
    folds = []
    for f in range(split.folds):
        fold = []
        for c in classes:
            held = held_out.get((f, c.label), {"n": 0, "n_rows": 0})
            n = c.n - (held["n"] if weight is None else float(held["n"]))
            rows_left = None if c.rows is None else c.rows - held["n_rows"]
            fold.append(dataclasses.replace(c, n=n, rows=rows_left))
        folds.append(fold)
    return folds


@dataclass(frozen=True)
class Plan:
    """What one cross-validation needs besides its folds: an id for its tables, the features
    chosen (and ``selection``: the features / categorical / numeric arguments that choose them
    again with nothing left to decide, stats/integer_rule.as_declared), the class counts, the
    number of source rows (NULL targets included), whether its results are kept and the
    high-cardinality check of the source. With ``features="top:k"``, ``top`` is k and
    ``features`` the candidates each training fold keeps its k best of."""

    cv_id: str
    selection: dict[str, Any]
    features: list
    classes: list[ClassCount]
    n_rows: int
    keep: bool
    check: CardinalityCheck
    top: int | None = None
    weighting: weights.Weighting | None = None
    measure_weight: str | None = None

    @property
    def weight(self) -> str | None:
        """The weight column of a weighted cross-validation's rows (stats/weights.py)."""
        return None if self.weighting is None else self.weighting.column

    @property
    def labels(self) -> tuple[Any, ...]:
        return tuple(c.value for c in self.classes)


def plan_evaluation(
    warehouse: Warehouse,
    src: Source,
    target: str,
    model: Classifier,
    key: str | None,
    selection: dict[str, Any],
    keep: bool,
    allow_high_cardinality: bool,
    sample_weight: str | None = None,
    weighted_measures: bool = False,
) -> Plan:
    """The :class:`Plan` of cross-validating ``model`` on ``src``: its features, classes and
    row count, read before any table is made; with a ``sample_weight`` column or the model's
    ``class_weight``, its weighting (class weights from all the source's rows), and with
    ``weighted_measures`` the sample-weight column the measures count rows as."""
    if weighted_measures and sample_weight is None:
        raise ParameterError("weighted_measures=True needs the sample_weight column to weigh by")
    catalog.ensure(warehouse)
    identifiers = [c for c in (key, sample_weight) if c]
    chosen, top = relevance.candidates(
        warehouse, src, target, selection.get("features"), keys=identifiers or None,
        **model.column_kinds(selection.get("categorical"), selection.get("numeric")),
    )  # fmt: skip
    classes, n_null = class_counts(warehouse, src, target)
    n_labelled = total(classes)
    check = CardinalityCheck(
        src.description, chosen, n_labelled, allow_high_cardinality=allow_high_cardinality
    )
    weighting = weights.weighting(
        warehouse, src, target, sample_weight, model.class_weight, classes,
        names.fresh("wml_weight", src.columns),
    )  # fmt: skip
    if weighting is not None:
        classes, _ = labelled_classes(
            warehouse, weighting.source(src, target), target, weighting.column
        )
        weights.check_class_totals(classes, src.description, target, weighting)
    cv_id = f"cv{uuid.uuid4().hex[:12]}"
    return Plan(
        cv_id, as_declared(chosen), chosen, classes, n_labelled + n_null, keep, check, top,
        weighting, sample_weight if weighted_measures else None,
    )  # fmt: skip


def _results(
    warehouse: Warehouse, evaluation_id: str, keep: bool, created_by: str
) -> ownership.Staging:
    """The staging of an evaluation's own tables: temporary, or kept in ``wml``."""
    return Staging(
        warehouse, owner_kind="evaluation", owner=evaluation_id, created_by=created_by,
        version=evaluation_id, lifetime=ownership.KEPT if keep else ownership.SESSION,
        temporary=not keep,
    )  # fmt: skip


def work_tables(warehouse: Warehouse, evaluation_id: str, created_by: str) -> ownership.Staging:
    """The staging of a call's intermediate tables (temporary, dropped before it returns)."""
    return ownership.work_tables(
        warehouse, owner_kind="evaluation", owner=evaluation_id, created_by=created_by,
        version=f"{evaluation_id}_work",
    )  # fmt: skip


def _evaluation(
    warehouse: Warehouse,
    results: Staging,
    write: Callable[[TableName], None],
    draft: Evaluation,
) -> Evaluation:
    """Register the predictions table of ``draft`` (an Evaluation whose table is still to be
    made) with its facts, write it with ``write`` and return the evaluation over it."""
    table = results.table(PREDICTIONS, details=draft.facts())
    write(table)
    return dataclasses.replace(draft, predictions=table)


def _draft(
    warehouse: Warehouse,
    results: Staging,
    target: str,
    labels: tuple[Any, ...],
    key: str | None,
    folds: int,
    split: TableName | None,
    probability_names: Sequence[str],
    keep: bool,
    subject: str,
    weight: str | None = None,
) -> Evaluation:
    """An evaluation of ``subject`` (:attr:`Evaluation.subject`) whose predictions table is not
    written yet (see :func:`_evaluation`)."""
    return Evaluation(
        warehouse, UNWRITTEN, target, labels, key, folds, split, results.version,
        tuple(probability_names), keep, weight, subject,
    )  # fmt: skip


def _writer(warehouse: Warehouse, query: exp.Query) -> Callable[[TableName], None]:
    """Write ``query``'s rows as a new table."""
    return lambda table: warehouse.run_tree(templates.create_table_as(table, query))


def _check_outputs(
    src: Source,
    key: str,
    target: str,
    labels: Sequence[Any],
    warehouse: Warehouse,
    weighted: Sequence[str] = (),
) -> list[str]:
    """The p_<label> names of the predictions, after checking that the key and the target do
    not clash with the columns the predictions add (``weighted``: the weight column's name,
    when the predictions carry one)."""
    probability_names = probability_columns([str(c) for c in labels], warehouse.IDENTIFIER_BYTES)
    names.check_outputs(
        [key, target], [FOLD, *probability_names, PREDICTION, *weighted], src.description
    )
    return probability_names


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
                key = _reused_key(src, reused, key)
            selection = {"features": features, "categorical": categorical, "numeric": numeric}
            plan = plan_evaluation(
                warehouse, src, target, model, key, selection, keep, allow_high_cardinality,
                sample_weight, weighted_measures,
            )  # fmt: skip
            if reused is not None:
                _check_reusable(warehouse, reused, target, plan)
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


def uses_exact_leave_one_out(model: Classifier, k: Any, plan: Plan) -> bool:
    """k = n for a model with an exact leave-one-out (loo.py) needs no fold table. Features
    chosen inside each training fold (``top:k``) have none, nor have weighted rows: both are
    refused for k = n."""
    if k != plan.n_rows or not isinstance(model, ExactLeaveOneOut):
        return False
    if plan.weighting is not None:
        raise ParameterError(
            "leave-one-out's exact computation subtracts each row's count of 1, not a weight; "
            f"use fewer folds than the {k} rows to cross-validate a weighted model"
        )
    if plan.top is not None:
        raise ParameterError(
            f"features='top:{plan.top}' chooses the attributes inside each training fold, which "
            f"leave-one-out's exact computation cannot; use fewer folds than the {k} rows"
        )
    return True


def _reused_key(src: Source, split: splits.Split, key: str | None) -> str | None:
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
    return split.key if split.key in src.columns else None


def _check_reusable(warehouse: Warehouse, split: splits.Split, target: str, plan: Plan) -> None:
    """The fold table must hold the key, the folds, the target and every chosen feature."""
    needed = [split.key, split.fold_column, target, *(f.name for f in plan.features)]
    held = set(warehouse.schema_of(split.table).names)
    missing = [c for c in needed if c not in held]
    if missing:
        raise ColumnError(
            f"fold assignment {split.table} has no columns {missing}; expected the source's "
            "columns next to the folds (assign_folds(..., keep_columns=True))"
        )


def assign_once(
    warehouse: Warehouse,
    src: Source,
    target: str,
    folds: int,
    stratified: bool,
    seed: int,
    key: str | None,
    work: Staging,
) -> splits.Split:
    """A fold assignment of the call (a temporary table of ``work``) holding every source
    column and a fold column of the library's own (a name no source column has)."""
    fold_column = names.fresh("wml_fold", src.columns)
    stratify = target if stratified else None
    query, n_rows = splits.fold_rows(
        warehouse, src, folds, seed=seed, key=key, stratify=stratify, keep_columns=True,
        fold_column=fold_column,
    )  # fmt: skip
    table = work.table("folds")
    warehouse.run_tree(templates.create_table_as(table, query))
    return splits.Split(
        table, key or splits.ROW_KEY, "folds", n_rows, folds, 1, seed, stratify, fold_column,
        work.version,
    )  # fmt: skip


def _learn_fold_by_fold(
    warehouse: Warehouse,
    model: Classifier,
    split: Source,
    target: str,
    features: list[Feature],
    fold: str,
    fold_classes: list[list[ClassCount]],
    tables: Staging,
    check: CardinalityCheck,
    choose: Callable[[exp.Query], list[Feature]],
    weight: str | None,
) -> list[ModelRecord]:
    """One model per fold (when the model does not learn every fold at once): fold f learns
    from the rows of ``split`` whose ``fold`` differs from f, with the features ``choose``
    keeps of ``features`` given those rows, in tables named by ``tables.part(f"f{f}")``; one
    scan per fold. The high-cardinality ``check`` is made first
    on the categorical attributes' values in all folds together (one count scan of the split),
    so that no fold does heavier work with an attribute that is refused. Returns each fold's
    (uncatalogued) record."""
    categorical = [f.name for f in features if f.kind == CATEGORICAL]
    if categorical:
        check.of_counts(warehouse, counting.categorical_counts(split.relation, target, categorical))
    records = []
    for index, classes in enumerate(fold_classes):
        rows = templates.build(
            "select_rows_outside_fold", split=split.relation, fold=fold, index=index
        )
        training = Training(
            Source(rows.subquery("wml_training"), split.schema, split.description, True),
            target, choose(rows), [classes], weight=weight,
        )  # fmt: skip
        fold_tables = tables.part(f"f{index}")
        details = model.learn_tables(warehouse, training, fold_tables, check)
        records.append(model.record_of(warehouse, fold_tables, training, details))
    return records


def _chooser(warehouse: Warehouse, target: str, plan: Plan) -> Callable[[exp.Query], list[Feature]]:
    """What a fold keeps of the plan's features given its training rows: all of them, or with
    ``top:k`` the k of highest MI with the class over those rows
    (models/inspection/relevance.py)."""
    if plan.top is None:
        return lambda rows: list(plan.features)
    top = plan.top
    return lambda rows: relevance.top_features(warehouse, rows, target, plan.features, top)


def cross_validate_planned(
    warehouse: Warehouse,
    src: Source,
    split: splits.Split,
    target: str,
    model: Classifier,
    plan: Plan,
    created_by: str,
    described: str,
    reused: bool = True,
) -> Evaluation:
    """Learn every fold's model from the rows of ``split`` (a fold table holding every source
    column) and write the pooled out-of-fold predictions, owned by the new evaluation, whose
    subject names the model as ``described`` (its :func:`settings`, or a candidate's)."""
    assert split.folds is not None, "a k-fold assignment"
    weighted = [] if plan.measure_weight is None else [WEIGHT]
    probability_names = _check_outputs(src, split.key, target, plan.labels, warehouse, weighted)
    split_source = Source(
        split.table.to_table(), warehouse.schema_of(split.table), str(split.table), True
    )
    if plan.weighting is not None:
        split_source = plan.weighting.source(split_source, target)
    fold_classes = _fold_classes(
        warehouse, split, split_source.relation, target, plan.classes, plan.weight
    )
    passthrough = [(split.key, split.key), (split.fold_column, FOLD), (target, target)]
    if plan.measure_weight is not None:
        passthrough.append((plan.measure_weight, WEIGHT))
    chosen = plan.features
    with (
        _results(warehouse, plan.cv_id, plan.keep, created_by) as results,
        work_tables(warehouse, plan.cv_id, created_by) as learned,
    ):
        try:

            def scored(record: Any, rows: exp.Query) -> exp.Query:
                held_out = Source(
                    rows.subquery("wml_rows"), split_source.schema, src.description, True
                )
                return model.scoring_query(
                    warehouse, record, held_out, passthrough=passthrough,
                    probability_names=probability_names, prediction_name=PREDICTION,
                )  # fmt: skip

            if plan.top is None and folds_at_once(model, chosen):
                tables = learned.part("all")
                training = Training(
                    split_source, target, chosen, fold_classes, held_out=split.fold_column,
                    weight=plan.weight,
                )  # fmt: skip
                details = model.learn_tables(warehouse, training, tables, plan.check)
                record = model.record_of(
                    warehouse, tables, training,
                    {**details, "partition_column": split.fold_column},
                )  # fmt: skip
                rows = templates.build("select_rows_with_target", source=split.table, target=target)
                write = _writer(warehouse, scored(record, rows))
            else:
                records = _learn_fold_by_fold(
                    warehouse, model, split_source, target, chosen, split.fold_column,
                    fold_classes, learned, plan.check, _chooser(warehouse, target, plan),
                    plan.weight,
                )  # fmt: skip

                def write(table: TableName) -> None:
                    for index, record in enumerate(records):
                        rows = templates.build(
                            "select_rows_of_fold", split=split.table, fold=split.fold_column,
                            index=index, target=target,
                        )  # fmt: skip
                        query = scored(record, rows)
                        if index == 0:
                            warehouse.run_tree(templates.create_table_as(table, query))
                        else:
                            warehouse.run("insert_rows", table=table, rows=query)

            draft = _draft(
                warehouse, results, target, plan.labels, split.key, split.folds,
                split.table if reused else None, probability_names, plan.keep,
                f"{split.folds}-fold cross-validation of {described} on {src.description}",
                None if plan.measure_weight is None else WEIGHT,
            )  # fmt: skip
            return _evaluation(warehouse, results, write, draft)
        finally:
            learned.drop()


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
                warehouse, record, labelled,
                passthrough=[(c, c) for c in [*keys, target]],
                probability_names=probability_names, prediction_name=PREDICTION,
            )  # fmt: skip
            catalog.ensure(warehouse)
            evaluation_id = f"ev{uuid.uuid4().hex[:12]}"
            subject = (
                f"Hold-out evaluation of model {record.name!r} ({record.kind}) on {src.description}"
            )
            with _results(warehouse, evaluation_id, keep, "evaluate") as results:
                draft = _draft(
                    warehouse, results, target, tuple(model.classes_),
                    keys[0] if keys else None, 1, None, probability_names, keep, subject,
                )  # fmt: skip
                return _evaluation(warehouse, results, _writer(warehouse, query), draft)
