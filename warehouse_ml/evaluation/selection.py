"""Model selection: compare candidate settings by cross-validation on the same folds, refit
the best on all rows, and keep the comparison (:func:`select_model`)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml import charts
from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation import metrics, out_of_fold, planning, plots, report, splits
from warehouse_ml.evaluation.loo import leave_one_out_open
from warehouse_ml.evaluation.metrics.registry import Criterion
from warehouse_ml.evaluation.result import Evaluation, settings
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.inspection import relevance
from warehouse_ml.models.state import read_common_state
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats.integer_rule import as_declared
from warehouse_ml.store import catalog, ownership
from warehouse_ml.store.ownership import Staging

MADE_BY = "select_model"
"""The call a model selection's refit is made by (its catalog state's ``made_by``), the
prefix of its default name."""


@dataclass(frozen=True)
class Candidate:
    """One setting to compare in :func:`select_model`: a model object and its feature choice
    (``features``: names, None for every column, or ``"top:k"``: the k attributes of highest
    MI with the class, chosen inside each training fold and, for the refit, over all rows)."""

    model: Classifier
    features: Sequence[str] | str | None = None
    categorical: Sequence[str] | None = None
    numeric: Sequence[str] | None = None

    def describe(self) -> str:
        """A readable one-line description, e.g. ``NaiveBayes(alpha=1.0, ...) features=all``
        (settings left at None are not shown)."""
        features = self.features if isinstance(self.features, str) else None
        if features is None:
            features = "all" if self.features is None else ",".join(self.features)
        return f"{settings(self.model)} features={features}"


def _refit_selection(
    warehouse: Warehouse, src: Source, target: str, plan: planning.Plan
) -> dict[str, Any]:
    """The features / categorical / numeric arguments that refit a candidate on all rows: the
    features its cross-validation used, or with ``top:k`` the k of highest MI over all rows."""
    if plan.top is None:
        return plan.selection
    kept = relevance.top_features(warehouse, src.relation, target, plan.features, plan.top)
    return as_declared(kept)


def _score(
    ev: Evaluation, criteria: Sequence[tuple[str, Criterion]], arguments: dict[str, Any]
) -> float:
    """The selection value of ``ev`` by the criterion that applies to its number of classes."""
    name, criterion = next((n, c) for n, c in criteria if c.applies(len(ev.classes)))
    options = (
        {} if criterion.argument is None else {criterion.argument: arguments[criterion.argument]}
    )
    return float(criterion.value(ev.measure(name, **options)))


@dataclass(frozen=True)
class Selection:
    """Outcome of :func:`select_model`: the refitted best model and the comparison.

    ``curves``: each candidate's cross-validated ROC points of class ``positive`` (the
    ``positive`` argument, else the second class of a binary target, else the first class),
    thinned in SQL to about ``plots.CURVE_POINTS``, keyed ``"<candidate>: <description>"``;
    ``aucs`` their AUCs. :meth:`plot_roc` draws them on one chart, :meth:`report` writes the
    comparison as a one-file HTML page.

    ``comparison`` columns: candidate (INTEGER, input order), description (VARCHAR), kind,
    measure (VARCHAR name), value (DOUBLE), accuracy (DOUBLE), chosen (BOOLEAN). It is also
    stored as table ``table`` (owned by the chosen model, dropped with it) and named in the
    chosen model's catalog details.
    """

    model: Classifier
    comparison: pa.Table
    table: TableName
    positive: Any = None
    curves: dict[str, pa.Table] = field(default_factory=dict)
    aucs: dict[str, float | None] = field(default_factory=dict)

    def plot_roc(self, ax: Any = None) -> Any:
        """Every candidate's ROC curve on one chart (AUC in the legend); returns the axes."""
        return charts.roc(charts.axes_or_new(ax, (6.0, 5.0)), self.curves, self.aucs)

    def report(self, path: str | Path, *, title: str | None = None) -> Path:
        """Write the comparison (every candidate's measure and accuracy, the chosen one, their
        ROC curves on one chart) as a self-contained HTML file; returns its path."""
        return report.selection_report(self, report.destination(path), title)


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
    allow_high_cardinality: bool = False,
    progress: ProgressCallback | None = None,
) -> Selection:
    """Compare candidate settings by cross-validation on the same folds, refit the best on all
    rows (stored as model ``name``, by default ``select_model_<target>``) and keep the
    comparison table in schema ``wml``.

    The refit replaces a model of that name only if an earlier ``select_model`` made it
    (whatever its kind or data); a model of the name that it did not make (a caller's fit,
    ``select_k``'s) is a NameConflictError before anything runs. The default name is no
    fit's default (``<kind>_<target>``: no kind is named ``select_model``).

    ``measure`` is one of error, log_score, brier (smaller is better), auc (binary: of
    ``positive``; multiclass: macro one-vs-rest), expected_loss (needs ``loss``), or the name
    of any registered measure's criterion (``metrics/registry.py``, ``Criterion``). Ties go to
    the earlier candidate. The folds are assigned once (a temporary table of the call) and
    every candidate is cross-validated on them. ``allow_high_cardinality`` is as for ``fit``
    (checked in every candidate's cross-validation and the refit). ``progress`` is called
    before each statement of every step (operation ``"select_model"``) and may raise to
    cancel.
    """
    known = metrics.registry.criteria()  # the registry entries' criteria, by selection name
    if measure not in known:
        raise ParameterError(f"measure must be one of {sorted(known)}, got {measure!r}")
    criteria = known[measure]
    arguments = {"positive": positive, "loss": loss}
    for _, criterion in criteria:
        if criterion.missing and arguments.get(criterion.argument or "") is None:
            raise ParameterError(f"measure={measure!r} needs {criterion.missing}")
    if not candidates:
        raise ParameterError("select_model needs at least one candidate")
    splits.check_folds(folds)
    larger_is_better = criteria[0][1].larger_is_better
    chosen = [c if isinstance(c, Candidate) else Candidate(c) for c in candidates]
    model_name = catalog.validate_name(name if name is not None else f"{MADE_BY}_{target}")
    with session(con, "select_model", progress) as warehouse:
        catalog.ensure(warehouse)  # before reading: a legacy catalog is migrated first
        existing = catalog.find(warehouse, model_name, read_common_state)
        catalog.refuse_replacing(warehouse, existing, None, MADE_BY)
        if isinstance(source, pa.RecordBatchReader):  # read by every candidate and the refit
            source = source.read_all()
        rows = []
        decided = []  # each candidate's features, as its cross-validation chose them
        curves: dict[str, pa.Table] = {}
        aucs: dict[str, float | None] = {}
        shown = None
        with open_source(warehouse, source) as src:
            selection_id = f"sel{uuid.uuid4().hex[:12]}"
            with out_of_fold.work_tables(warehouse, selection_id, "select_model") as work:
                try:
                    shared: splits.Split | None = None  # one fold assignment for every candidate
                    for index, candidate in enumerate(chosen):
                        selection = {
                            "features": candidate.features,
                            "categorical": candidate.categorical,
                            "numeric": candidate.numeric,
                        }
                        plan = planning.plan_evaluation(
                            warehouse, src, target, candidate.model, key, selection, False,
                            allow_high_cardinality,
                        )  # fmt: skip
                        if planning.uses_exact_leave_one_out(candidate.model, folds, plan):
                            ev = leave_one_out_open(
                                warehouse, src, target, candidate.model, key=key, keep=False,
                                created_by="select_model", described=candidate.describe(),
                                **plan.selection,
                            )  # fmt: skip
                        else:
                            shared = shared or out_of_fold.assign_once(
                                warehouse, src, target, folds, stratified, seed, key, work
                            )
                            ev = out_of_fold.cross_validate_planned(
                                warehouse, src, shared, target, candidate.model, plan,
                                "select_model", candidate.describe(),
                            )  # fmt: skip
                        with ev:
                            value = _score(ev, criteria, arguments)
                            accuracy = ev.accuracy().accuracy
                            shown = ev.chart_class(positive)
                            label = f"{index}: {candidate.describe()}"
                            curves[label] = ev.roc_curve(shown, max_points=plots.CURVE_POINTS)
                            aucs[label] = ev.auc(shown).auc
                        rows.append(
                            [index, candidate.describe(), candidate.model.kind, measure, value,
                             accuracy]
                        )  # fmt: skip
                        decided.append(_refit_selection(warehouse, src, target, plan))
                finally:
                    work.drop()
        values = [r[4] for r in rows]
        best = values.index(max(values) if larger_is_better else min(values))
        for r in rows:
            r.append(r[0] == best)
        columns = ("candidate", "description", "kind", "measure", "value", "accuracy", "chosen")
        winner = chosen[best]
        with Staging(
            warehouse, owner_kind="model", owner=model_name, created_by="select_model",
            version=selection_id, lifetime=ownership.MODEL, registry_version="",
        ) as kept:  # fmt: skip
            table = kept.table("comparison")
            warehouse.run_tree(
                templates.create_table_as(
                    table, exp.select(exp.Star()).from_(templates.values(rows, "r", columns))
                )
            )
            model = type(winner.model)(**winner.model.get_params()).fit(
                warehouse, source, target, **decided[best],
                keys=[key] if key else None, name=model_name,
                details={"selection": list(table.parts), "made_by": MADE_BY},
                allow_high_cardinality=allow_high_cardinality,
            )  # fmt: skip
        comparison = pa.Table.from_pylist([dict(zip(columns, r, strict=True)) for r in rows])
        return Selection(model, comparison, table, shown, curves, aucs)
