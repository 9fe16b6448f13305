"""The result of an evaluation: out-of-sample predictions in a table and every measure over it.

:class:`Evaluation` is returned by cross-validation (crossval.py), exact leave-one-out (loo.py)
and hold-out evaluation; each measure is computed in SQL by the metrics package, and
:class:`Evaluation` offers every registered measure (:meth:`Evaluation.measure`) and a method per
measure whose registry entry names one (``metrics/registry.py``, ``Method``).

Lifetime (the guest contract, docs/RELIABILITY.md): an evaluation's tables belong to it. By
default they are temporary: the engine's temporary tables of the connection, gone when it
closes (on Spark, which has none, tables in ``wml`` registered with lifetime ``session``, which
:func:`warehouse_ml.vacuum` removes once their session has ended), and :meth:`Evaluation.drop`
(or leaving a ``with`` block) removes them at once. An evaluation object that is
garbage-collected without being dropped has its tables dropped at the next library call on its
connection (its finalizer only records them, :meth:`Warehouse.defer`: a finalizer may run at any
moment and never runs SQL), so a long-lived connection does not keep every evaluation it ever
made. With ``keep=True`` they are tables in schema ``wml`` that stay until
:func:`drop_evaluation`; :func:`list_evaluations` lists them and :func:`load_evaluation` opens
one again in another process.
"""

from __future__ import annotations

import functools
import json
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, open_source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation import metrics
from warehouse_ml.evaluation.report import Pictures
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.scoring.names import FOLD, PREDICTION
from warehouse_ml.sqlgen.templates import TableName, column, literal
from warehouse_ml.store import ownership

PREDICTIONS = "predictions"
"""Registry role of an evaluation's predictions table (its row holds the evaluation's facts)."""
UNWRITTEN = TableName(("unwritten",))
"""The predictions name of an evaluation being made (crossval.py), before its table exists."""


def settings(model: Classifier) -> str:
    """A model object as an evaluation's subject names it: its class and the settings that
    are not None, e.g. ``TAN(alpha=0.5, prior_alpha=0.5, bins=5)``."""
    shown = ", ".join(f"{k}={v!r}" for k, v in model.get_params().items() if v is not None)
    return f"{type(model).__name__}({shown})"


class _Lease:
    """The temporary tables of one evaluation, held by the :class:`Evaluation` and every copy
    of it: its finalizer drops them (at the next library call on their connection,
    :meth:`Warehouse.defer`) once the last holder is garbage-collected."""

    __slots__ = ("__weakref__", "finalizer")
    _held: ClassVar[weakref.WeakValueDictionary[tuple[int, TableName], _Lease]] = (
        weakref.WeakValueDictionary()
    )

    def __init__(self, evaluation: Evaluation) -> None:
        drop = functools.partial(
            _drop_tables, predictions=evaluation.predictions, evaluation=evaluation.id
        )
        self.finalizer = weakref.finalize(self, evaluation.warehouse.defer, drop)
        self.finalizer.atexit = False  # the connection's end drops temporary tables anyway

    @classmethod
    def of(cls, evaluation: Evaluation) -> _Lease:
        """The lease of ``evaluation``'s tables: the one a live copy holds, or a new one."""
        held = (id(evaluation.warehouse.native), evaluation.predictions)
        lease = cls._held.get(held)
        if lease is None or not lease.finalizer.alive:
            lease = cls._held[held] = cls(evaluation)
        return lease


@dataclass(frozen=True)
class Evaluation(Pictures):
    """Out-of-sample predictions and the measures computed from them (all in SQL), with their
    charts and report (evaluation/report.py).

    Attributes:
        predictions: the pooled predictions table (key, fold, target, p_<label>..., prediction).
        target: the true-class column in it.
        classes: class labels in probability-column order.
        key: the key column.
        folds: number of folds (1 for a hold-out evaluation).
        split: the fold assignment the evaluation used when the caller supplied one.
        id: the evaluation's id (its owner name in the object registry).
        probability_columns: the ``p_<label>`` columns of ``predictions``, in class order.
        kept: whether its tables persist in ``wml`` (``keep=True``).
        weight: the predictions' column of row weights that its measures count each row as
            (``weighted_measures=True``), or None: every row counts once.
        subject: what was evaluated on which data, e.g. ``"10-fold cross-validation of
            TAN(alpha=0.5, prior_alpha=0.5, bins=5) on customers"``: the report's title (""
            for an evaluation kept by a version that did not record it).
        measured: the measures computed so far, by name and options (:meth:`measure`).
    """

    warehouse: Warehouse = field(repr=False)
    predictions: TableName
    target: str
    classes: tuple[Any, ...]
    key: str | None
    folds: int
    split: TableName | None = None
    id: str = ""
    probability_columns: tuple[str, ...] = ()
    kept: bool = False
    weight: str | None = None
    subject: str = ""
    measured: dict[tuple[str, str], Any] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    lease: _Lease | None = field(default=None, init=False, repr=False, compare=False)
    """The temporary tables' lease, shared with every copy of the evaluation
    (``dataclasses.replace``); None for a kept one or a draft."""

    def __post_init__(self) -> None:
        if self.kept or self.predictions == UNWRITTEN:
            return
        object.__setattr__(self, "lease", _Lease.of(self))

    def facts(self) -> dict[str, Any]:
        """What the registry records to open the evaluation again (:func:`load_evaluation`)."""
        return {
            "target": self.target,
            "classes": list(self.classes),
            "key": self.key,
            "folds": self.folds,
            "split": None if self.split is None else list(self.split.parts),
            "probability_columns": list(self.probability_columns),
            "weight": self.weight,
            "subject": self.subject,
        }

    def drop(self) -> None:
        """Remove the evaluation's tables (and their registry rows) now."""
        if self.lease is not None:
            self.lease.finalizer.detach()
        with session(self.warehouse) as warehouse:
            _drop_tables(warehouse, predictions=self.predictions, evaluation=self.id)
            if self.kept:
                warehouse.after_drop()

    def __enter__(self) -> Evaluation:
        return self

    def __exit__(self, *_: Any) -> None:
        self.drop()

    def measure(self, name: str, **options: Any) -> Any:
        """The measure ``name`` (a registered measure, see ``metrics.MEASURES``) over the
        predictions, with the measure's ``options``; the same as ``metrics.<name>`` over this
        evaluation's predictions table. Computed once per evaluation object and options (the
        predictions table is the evaluation's own and never changes), so a report or a chart
        that shows a measure again does not compute it again."""
        key = metrics.registry.measure_key(name, options)
        if key not in self.measured:
            entry = metrics.registry.entry(name)
            chosen = self._columns(entry)
            with (
                session(self.warehouse) as warehouse,
                open_source(warehouse, self.predictions) as src,
            ):
                self.measured[key] = metrics.registry.compute_over(
                    entry, warehouse, src, chosen, options
                )
        return self.measured[key]

    def fold_measure(self, name: str, fold: int, **options: Any) -> Any:
        """The measure ``name`` over the predictions of one fold (0-based) of a
        cross-validation, e.g. that fold's ROC curve."""
        if not 0 <= fold < self.folds or self.folds < 2:
            raise ParameterError(f"fold must be within 0..{self.folds - 1} of a cross-validation")
        entry = metrics.registry.entry(name)
        in_fold = exp.EQ(this=column(FOLD, "t"), expression=literal(fold))
        rows = exp.select(exp.Star()).from_(self.predictions.to_table().as_("t")).where(in_fold)
        with session(self.warehouse) as warehouse:
            schema = warehouse.schema_of(self.predictions)
            described = f"fold {fold} of {self.predictions}"
            src = Source(rows.subquery("wml_fold"), schema, described, False)
            columns = self._columns(entry)
            return metrics.registry.compute_over(entry, warehouse, src, columns, options)

    def _columns(self, entry: metrics.Measure) -> dict[str, Any]:
        """The predictions' columns ``entry`` reads."""
        columns = {
            "target": self.target,
            "probabilities": dict(zip(self.classes, self.probability_columns, strict=True)),
            "prediction": PREDICTION,
            "weight": self.weight,
        }
        return {column: columns[column] for column in entry.reads}

    def to_arrow(self) -> pa.Table:
        """The predictions, ordered by fold then key (a hold-out evaluation without keys: in
        the order the table holds them)."""
        order = [column(FOLD, "t")] if self.folds > 1 else []
        if self.key is not None:
            order.append(column(self.key, "t"))
        with session(self.warehouse) as warehouse:
            if not order:
                return warehouse.fetch("select_all", source=self.predictions)
            return warehouse.fetch("select_table", table=self.predictions, order_columns=order)


def _drop_tables(warehouse: Warehouse, *, predictions: TableName, evaluation: str) -> None:
    """Drop an evaluation's predictions table and its other registered tables (on Spark, the
    registered "temporary" ones), with their registry rows."""
    warehouse.run("drop_table", table=predictions)
    ownership.release(warehouse, ownership.owned_by(warehouse, "evaluation", evaluation))


def _method(entry: metrics.Measure, name: str, doc: str) -> Callable[..., Any]:
    """The :class:`Evaluation` method ``name`` of a registry entry: :meth:`Evaluation.measure`
    with the entry's options the method takes (``entry.method``)."""
    signature = entry.method_signature()

    def method(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        options = dict(bound.arguments)
        return options.pop("self").measure(entry.name, **options)

    method.__name__ = name
    method.__qualname__ = f"Evaluation.{name}"
    method.__doc__ = doc
    method.__signature__ = signature  # type: ignore[attr-defined]
    return method


def _add_methods() -> None:
    """Give :class:`Evaluation` the method each registry entry names."""
    for entry in metrics.registry.entries():
        if entry.method is not None:
            named = _method(entry, entry.method.name, entry.method.doc)
            setattr(Evaluation, entry.method.name, named)


_add_methods()


def _kept(warehouse: Warehouse) -> list[ownership.Owned]:
    """The registry rows of kept evaluations' predictions tables that exist."""
    rows = [
        o
        for o in ownership.owned(warehouse)
        if o.owner_kind == "evaluation" and o.role == PREDICTIONS and o.lifetime == ownership.KEPT
    ]
    return [o for o in rows if warehouse.relation_kind(ownership.library_object(warehouse, o.name))]


def list_evaluations(con: Connectable) -> pa.Table:
    """The kept evaluations (``keep=True``), one row each: id (VARCHAR), created_by (the call),
    created_at (TIMESTAMP, UTC), lifetime ('kept'), predictions (VARCHAR, the table), target,
    folds (INTEGER), classes (VARCHAR, JSON)."""
    with session(con) as warehouse:
        rows = _kept(warehouse)
    return pa.Table.from_pylist(
        [
            {
                "id": o.owner,
                "created_by": o.created_by,
                "created_at": o.created_at,
                "lifetime": o.lifetime,
                "predictions": str(o.name),
                "target": o.details.get("target"),
                "folds": o.details.get("folds"),
                "classes": json.dumps(o.details.get("classes")),
            }
            for o in rows
        ],
        schema=pa.schema(
            [
                ("id", pa.string()),
                ("created_by", pa.string()),
                ("created_at", pa.timestamp("us")),
                ("lifetime", pa.string()),
                ("predictions", pa.string()),
                ("target", pa.string()),
                ("folds", pa.int64()),
                ("classes", pa.string()),
            ]
        ),
    )


def load_evaluation(con: Connectable, evaluation_id: str) -> Evaluation:
    """A kept evaluation (``keep=True``), opened again from the registry (in any process)."""
    with session(con) as warehouse:
        rows = [o for o in _kept(warehouse) if o.owner == evaluation_id]
        if not rows:
            known = sorted({o.owner for o in _kept(warehouse)})
            raise ParameterError(
                f"no evaluation {evaluation_id!r} with tables in this database; evaluations "
                f"here: {known}"
            )
    row = rows[0]
    facts = row.details
    return Evaluation(
        warehouse,
        row.name,
        facts["target"],
        tuple(facts["classes"]),
        facts["key"],
        facts["folds"],
        None if facts["split"] is None else TableName(tuple(facts["split"])),
        evaluation_id,
        tuple(facts["probability_columns"]),
        True,
        facts.get("weight"),
        facts.get("subject", ""),
    )


def drop_evaluation(con: Connectable, evaluation_id: str) -> None:
    """Remove a kept evaluation's tables and their registry rows."""
    load_evaluation(con, evaluation_id).drop()
