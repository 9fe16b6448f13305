"""Choosing k of k nearest neighbours by cross-validation: every candidate k from ONE ranked
neighbour table (:func:`select_k`), which the kind gives by its capability
:class:`~warehouse_ml.models.capabilities.ErrorsOfEveryK` (the SQL is
models/learners/neighbors/folds.py). The kind's class comes from the registry
(models/kinds.py), as ``wml.load`` finds a stored model's: nothing here imports a learner."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import pyarrow as pa

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import NotSupportedError, ParameterError
from warehouse_ml.evaluation import out_of_fold, planning, splits
from warehouse_ml.models import capabilities, kinds
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import ErrorsOfEveryK
from warehouse_ml.models.state import read_common_state
from warehouse_ml.models.training import FoldedRows
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.store import catalog

KIND = "k_nearest_neighbors"
"""The registered kind whose k :func:`select_k` chooses (its class declares
:class:`ErrorsOfEveryK`)."""

MADE_BY = "select_k"
"""The call ``select_k``'s refit is made by (its catalog state's ``made_by``), the prefix of
its default name."""


@dataclass(frozen=True)
class KSelection:
    """Outcome of :func:`select_k`: ``model``, the chosen k refitted on every row, and
    ``comparison``: one row per candidate, columns k (int64), error (float64: the share of
    held-out rows predicted wrong), accuracy (float64, 1 - error), chosen (bool)."""

    model: Classifier
    comparison: pa.Table


def select_k(
    con: Connectable,
    source: SourceLike,
    target: str,
    ks: Iterable[int],
    *,
    weights: str = "uniform",
    metric: str = "euclidean",
    p: float = 2.0,
    ties: str = "key",
    folds: int = 10,
    stratified: bool = True,
    seed: int = 0,
    key: str | None = None,
    features: Sequence[str] | str | None = None,
    categorical: Iterable[str] | None = None,
    numeric: Iterable[str] | None = None,
    name: str | None = None,
    allow_high_cardinality: bool = False,
    progress: ProgressCallback | None = None,
    sample_weight: str | None = None,
    class_weight: str | dict | None = None,
) -> KSelection:
    """Cross-validate :class:`KNearestNeighbors` with ``weights``, ``metric``, ``p`` and
    ``ties`` for every k of ``ks`` on the same folds, from one search of each held-out row's
    max(ks) nearest rows of its training folds; refit the k of least error (ties to the
    smaller k) with those settings on every row as model ``name`` (default
    ``select_k_<target>``, no fit's default name ``<kind>_<target>``). The refit replaces a
    model of that name only if an earlier ``select_k`` made it; one it did not make (a
    caller's fit, ``select_model``'s) is a NameConflictError before anything runs.

    Each k's error equals that of ``cross_validate(con, source, target,
    KNearestNeighbors(k=k, weights=weights, metric=metric, p=p, ties=ties), folds=folds,
    stratified=stratified, seed=seed, key=key)``: the folds are assigned the same way and
    each fold's scaling is learned on its training rows. ``features``, ``categorical``,
    ``numeric`` and ``allow_high_cardinality`` are as for ``fit`` (``"top:k"`` is not taken
    here); ``progress`` as for ``cross_validate`` (operation ``"select_k"``). ``sample_weight``
    and ``class_weight`` are as for ``cross_validate`` and the model: k-NN has no weighted
    form, so either is a NotSupportedError before anything runs.
    """
    chosen_ks = sorted({_k(k) for k in ks})
    if not chosen_ks:
        raise ParameterError("select_k needs at least one k")
    splits.check_folds(folds)
    settings = {"weights": weights, "metric": metric, "p": p, "ties": ties}
    searcher = _searcher()
    largest = searcher(k=chosen_ks[-1], class_weight=class_weight, **settings)
    capabilities.require(largest, ErrorsOfEveryK, "select_k")
    model_name = catalog.validate_name(name if name is not None else f"{MADE_BY}_{target}")
    with session(con, "select_k", progress) as warehouse:
        if isinstance(source, pa.RecordBatchReader):  # read by the search and the refit
            source = source.read_all()
        selection = {"features": features, "categorical": categorical, "numeric": numeric}
        with open_source(warehouse, source) as src:
            plan = planning.plan_evaluation(
                warehouse, src, target, largest, key, selection, False, allow_high_cardinality,
                sample_weight,
            )  # fmt: skip
            if plan.top is not None:
                raise ParameterError('select_k takes features by name, not "top:k"')
            existing = catalog.find(warehouse, model_name, read_common_state)  # plan ensured it
            catalog.refuse_replacing(warehouse, existing, None, MADE_BY)
            with out_of_fold.work_tables(
                warehouse, f"knn{uuid.uuid4().hex[:12]}", "select_k"
            ) as work:
                try:
                    split = out_of_fold.assign_once(
                        warehouse, src, target, folds, stratified, seed, key, work
                    )
                    rows = Source(
                        split.table.to_table(), warehouse.schema_of(split.table),
                        src.description, True,
                    )  # fmt: skip
                    folded = FoldedRows(
                        rows, split.fold_column, folds, target, plan.features, plan.classes
                    )
                    errors = largest._errors_of_every_k(
                        warehouse, folded, chosen_ks, work, plan.check
                    )
                finally:
                    work.drop()
        best = min(chosen_ks, key=lambda k: (errors[k], k))
        model = searcher(k=best, **settings).fit(
            warehouse, source, target, **plan.selection, keys=[key] if key else None,
            name=model_name, details={"made_by": MADE_BY},
            allow_high_cardinality=allow_high_cardinality,
        )  # fmt: skip
    comparison = pa.table(
        {
            "k": pa.array(chosen_ks, pa.int64()),
            "error": pa.array([errors[k] for k in chosen_ks], pa.float64()),
            "accuracy": pa.array([1.0 - errors[k] for k in chosen_ks], pa.float64()),
            "chosen": pa.array([k == best for k in chosen_ks]),
        }
    )
    return KSelection(model, comparison)


def _searcher() -> type[Classifier]:
    """The class of :data:`KIND`, from the registry (a NotSupportedError when the kind is not
    registered)."""
    spec = kinds.spec_of(KIND)
    if spec is None:
        raise NotSupportedError(f"select_k needs the model kind {KIND!r}, which is not registered")
    return spec.load()


def _k(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ParameterError(f"every k must be an integer >= 1, got {value!r}")
    return value
