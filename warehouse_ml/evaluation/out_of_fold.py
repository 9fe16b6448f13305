"""Every fold's model and the pooled out-of-fold predictions of a planned cross-validation.

:func:`cross_validate_planned` learns the models of a fold assignment (splits.py) and writes
the predictions table. A kind declaring
:class:`~warehouse_ml.models.capabilities.FoldsAtOnce` (for the features it accepts) learns
every fold from ONE count scan grouped by fold: each fold's training counts are the per-fold
counts of the other folds summed, its parameters are written by the same statements into
tables with a wml_part column, and ONE query scores every row with its own fold's model.
Other kinds, ``features="top:k"`` and the features a kind excludes (TAN with numeric
attributes, whose bin edges are each fold's own) learn one model per fold and score each
fold by one statement. The tables an evaluation owns (:func:`result_tables`: its predictions,
temporary unless kept) and a call's intermediate ones (:func:`work_tables`: the fold
assignment, every fold's model; dropped before the call returns) are staged here, for
cross-validation, hold-out evaluation and model selection alike.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.evaluation import splits
from warehouse_ml.evaluation.planning import Plan
from warehouse_ml.evaluation.result import PREDICTIONS, UNWRITTEN, Evaluation
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import folds_at_once
from warehouse_ml.models.inspection import relevance
from warehouse_ml.models.members import Folds
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.scoring.names import FOLD, PREDICTION, WEIGHT, probability_columns
from warehouse_ml.models.state import FittedState
from warehouse_ml.models.training import ClassCount, Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats import counting
from warehouse_ml.stats.features import CATEGORICAL, Feature
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store import ownership
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


def result_tables(
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


def written(
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


def unwritten(
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
    written yet (see :func:`written`)."""
    return Evaluation(
        warehouse, UNWRITTEN, target, labels, key, folds, split, results.version,
        tuple(probability_names), keep, weight, subject,
    )  # fmt: skip


def writer(warehouse: Warehouse, query: exp.Query) -> Callable[[TableName], None]:
    """Write ``query``'s rows as a new table."""
    return lambda table: warehouse.run_tree(templates.create_table_as(table, query))


def check_outputs(
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
        learned = model.learn_tables(warehouse, training, fold_tables, check)
        records.append(model.record_of(warehouse, fold_tables, training, learned))
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
    probability_names = check_outputs(src, split.key, target, plan.labels, warehouse, weighted)
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
        result_tables(warehouse, plan.cv_id, plan.keep, created_by) as results,
        work_tables(warehouse, plan.cv_id, created_by) as work,
    ):
        try:

            def scored(record: Any, rows: exp.Query) -> exp.Query:
                held_out = Source(
                    rows.subquery("wml_rows"), split_source.schema, src.description, True
                )
                return model.scoring_query(
                    ScoringContext(warehouse), record, held_out, passthrough=passthrough,
                    probability_names=probability_names, prediction_name=PREDICTION,
                )  # fmt: skip

            if plan.top is None and folds_at_once(model, chosen):
                tables = work.part("all")
                training = Training(
                    split_source, target, chosen, fold_classes,
                    members=Folds(split.fold_column, split.folds),
                    weight=plan.weight,
                )  # fmt: skip
                fitted = model.learn_tables(warehouse, training, tables, plan.check)
                record = model.record_of(
                    warehouse, tables, training, fitted,
                    noted=FittedState(partition_column=split.fold_column, row_key=split.key),
                )  # fmt: skip
                rows = templates.build("select_rows_with_target", source=split.table, target=target)
                write = writer(warehouse, scored(record, rows))
            else:
                records = _learn_fold_by_fold(
                    warehouse, model, split_source, target, chosen, split.fold_column,
                    fold_classes, work, plan.check, _chooser(warehouse, target, plan),
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

            draft = unwritten(
                warehouse, results, target, plan.labels, split.key, split.folds,
                split.table if reused else None, probability_names, plan.keep,
                f"{split.folds}-fold cross-validation of {described} on {src.description}",
                None if plan.measure_weight is None else WEIGHT,
            )  # fmt: skip
            return written(warehouse, results, write, draft)
        finally:
            work.drop()
