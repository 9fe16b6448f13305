"""The model catalog: parameter tables and one metadata row per model, in schema ``wml``;
publishing a model's new version, dropping a model, listing them.

A model's parameters live in ordinary tables named ``wml.<model_id>_<part>``, each registered
in the object registry (:mod:`warehouse_ml.store.ownership`) before it is created; the catalog table
``wml.models`` maps the model's name to its current ``model_id``. A (re-)fit writes a complete
new set of tables under a fresh id, then, in one transaction, swaps the catalog row, rebuilds
the model's registered views and drops the old version's tables. Readers therefore see the old
model or the new one, never a mix, and a fit that fails leaves the old model untouched.

The row itself, its formats and its (de)serialisation are :mod:`warehouse_ml.store.record`'s;
the functions here that decode rows take the ``read_state`` that reads a model's state
(models/state.py).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, describes
from warehouse_ml.errors import (
    ConcurrentFitError,
    CorruptModelError,
    DependentObjectError,
    IncompatibleModelError,
    ModelNotFoundError,
    NameConflictError,
    ParameterError,
    SourceError,
)
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column, literal
from warehouse_ml.store import leftovers, ownership
from warehouse_ml.store.ownership import Owned
from warehouse_ml.store.record import (
    CATALOG_NAME,
    JSON_COLUMNS,
    REGISTERED_FORMAT,
    SCHEMA,
    ModelRecord,
    StateReader,
    decode,
    row_values,
)

LEGACY_VIEWS = "views"
PREDICTION_VIEW = "prediction_view"
"""Registry role of a model's prediction views (rebuilt with each fit of the model)."""

EXPLANATION_VIEW = "explanation_view"
"""Registry role of a model's explanation views (rebuilt with each fit of the model)."""

DRIFT_VIEW = "drift_view"
"""Registry role of a model's drift views (rebuilt with each fit or update of the model)."""

MODEL_VIEWS = (PREDICTION_VIEW, EXPLANATION_VIEW, DRIFT_VIEW)
"""The roles of the views a fit rebuilds."""


def catalog_table(warehouse: Warehouse) -> TableName:
    """``wml.models``."""
    return warehouse.library_table(CATALOG_NAME)


def read_part(warehouse: Warehouse, record: ModelRecord, part: str) -> pa.Table:
    """Every row of one parameter table of ``record``, sorted by all its columns."""
    table = record.table(part)
    names = warehouse.schema_of(table).names
    return warehouse.fetch(
        "select_table", table=table, order_columns=[templates.column(n, "t") for n in names]
    )


def new_model_id() -> str:
    """A fresh id: parameter tables of a new fit never collide with the current ones."""
    return f"m{uuid.uuid4().hex[:16]}"


def validate_name(name: str) -> str:
    """Model names are any non-empty string (they are stored as values, never as SQL)."""
    if not isinstance(name, str) or not name.strip():
        raise ParameterError(f"a model name is a non-empty string, got {name!r}")
    return name


def _exists(warehouse: Warehouse, name: str) -> bool:
    """Whether the library's table ``wml.<name>`` exists (asked once per call)."""
    if name in warehouse.known:
        return True
    table = ownership.library_object(warehouse, warehouse.library_table(name))
    if warehouse.relation_kind(table) is None:
        return False
    warehouse.known.add(name)
    return True


def ensure(warehouse: Warehouse) -> None:
    """Create schema ``wml``, the catalog and the object registry if they do not exist, and
    move the views a format-1 catalog registered (``wml.views``) into the registry (one read of
    the schema's objects, once per call)."""
    if CATALOG_NAME in warehouse.known:
        return
    present = {name for name, _ in warehouse.schema_objects(SCHEMA)}
    if ownership.REGISTRY not in present:
        ownership.ensure(warehouse)
    if CATALOG_NAME not in present:
        warehouse.run("create_catalog", table=catalog_table(warehouse))
    warehouse.known |= {ownership.REGISTRY, CATALOG_NAME}
    if LEGACY_VIEWS in present:
        _migrate_views(warehouse)


def _migrate_views(warehouse: Warehouse) -> None:
    legacy = warehouse.library_table(LEGACY_VIEWS)
    rows = warehouse.fetch(
        "select_rows_where", table=legacy, condition=exp.true(),
        order_columns=[column("view_name", "t")],
    ).to_pylist()  # fmt: skip
    with warehouse.transaction():
        for row in rows:
            view = TableName(tuple(json.loads(row["view_name"])))
            located = warehouse.resolve_existing(view)
            if located is None or located.kind != "view":
                continue  # dropped by hand since: nothing to own
            claimed = ownership.Claim(located.name, "view", None)
            ownership.take(
                warehouse, claimed, owner_kind="model", owner=row["model"], role=PREDICTION_VIEW,
                created_by="create_view", lifetime=ownership.MODEL,
                details={
                    "source": json.loads(row["source"]), "options": json.loads(row["options"])
                },
            )  # fmt: skip
        warehouse.run("drop_table", table=legacy)


def read(warehouse: Warehouse, name: str, read_state: StateReader) -> ModelRecord:
    """The catalog row of model ``name``, its state read by ``read_state``;
    ModelNotFoundError if there is none."""
    if not _exists(warehouse, CATALOG_NAME):
        raise ModelNotFoundError(f"no model {name!r}: this database has no model catalog yet")
    rows = _rows(warehouse, name, read_state)
    if not rows:
        known = [r["name"] for r in list_models(warehouse)]
        raise ModelNotFoundError(
            f"no model {name!r} in {SCHEMA}.{CATALOG_NAME}; models here: {known}"
        )
    return rows[0]


def find(warehouse: Warehouse, name: str, read_state: StateReader) -> ModelRecord | None:
    """The catalog row of model ``name`` (its state read by ``read_state``), or None when there
    is none or it cannot be decoded (a corrupt row, or one of a newer format or an unknown kind:
    a fit under the name replaces it)."""
    if not _exists(warehouse, CATALOG_NAME):
        return None
    try:
        rows = _rows(warehouse, name, read_state)
    except (CorruptModelError, IncompatibleModelError):
        return None
    return rows[0] if rows else None


def refuse_replacing(
    warehouse: Warehouse,
    existing: ModelRecord | None,
    fitting: tuple[str, str, Source] | None,
    made_by: str | None = None,
    replace: bool = False,
) -> None:
    """Refuse (NameConflictError naming the existing model, its kind, target and source) a fit
    under the name of ``existing`` that would replace another model without ``replace``.

    A caller's fit (``made_by`` None) of ``fitting`` (its kind, target and source) replaces a
    model of its name only when that model has the same kind and target and was fitted from
    the same source (the same text, or a name of the same table: engines/sources.py
    ``describes``): a re-fit, whose registered views are rebuilt. A fit the library makes
    under a name of its own (``made_by``: ``select_model``, ``select_k``) replaces only a
    model the same call made (the state's ``made_by``), whatever it holds, and never one it
    did not make; it may check before it knows what it will fit (``fitting`` None)."""
    if existing is None or replace:
        return
    was_made_by = existing.state.made_by
    if made_by is not None and was_made_by == made_by:
        return
    if made_by is None and fitting is not None:
        kind, target, source = fitting
        if (existing.kind, existing.target) == (kind, target) and describes(
            warehouse, source, existing.source
        ):
            return
    held = (
        f"model {existing.name!r} already exists: a {existing.kind} model of target "
        f"{existing.target!r} trained on {existing.source} at {existing.created_at} UTC"
        + ("" if was_made_by is None else f" by {was_made_by}")
    )
    if made_by is not None or fitting is None:
        raise NameConflictError(
            f"{held}; {made_by} replaces only a model it made itself: give it another name=, "
            "or drop that model first"
        )
    kind, target, source = fitting
    raise NameConflictError(
        f"{held}, and this fit is a {kind} model of target {target!r} on "
        f"{source.description}; expected a new name: give replace=True to replace it, or "
        "another name= for this model"
    )


def current_version(warehouse: Warehouse, name: str) -> str | None:
    """The model id the catalog holds for ``name`` now, or None. Every call on a fitted model
    reads it (a version replaced or dropped since is refused), so the catalog is read at once,
    and whether it exists is asked only when that read fails (one statement, not two)."""
    try:
        rows = _raw_rows(warehouse, name)
    except SourceError:
        if _exists(warehouse, CATALOG_NAME):
            raise
        return None
    return rows[0]["model_id"] if rows else None


def _raw_rows(warehouse: Warehouse, name: str) -> list[dict[str, Any]]:
    """The catalog rows of ``name``, by a text rendered once per process and name (every
    call on a model reads its row: :func:`current_version`)."""
    return warehouse.fetch(
        "select_model_rows", table=catalog_table(warehouse), name=name
    ).to_pylist()


def _rows(warehouse: Warehouse, name: str, read_state: StateReader) -> list[ModelRecord]:
    """Every catalog row of ``name`` (one, except after two concurrent FIRST fits of a name,
    see :func:`publish`)."""
    return [decode(row, read_state) for row in _raw_rows(warehouse, name)]


def list_models(warehouse: Warehouse) -> list[dict[str, Any]]:
    """Every catalog row as a dict (JSON columns decoded), by name."""
    if not _exists(warehouse, CATALOG_NAME):
        return []
    rows = warehouse.fetch(
        "select_rows_where", table=catalog_table(warehouse), condition=exp.true(),
        order_columns=[column("name", "t"), column("model_id", "t")],
    ).to_pylist()  # fmt: skip
    decoded = []
    for row in rows:
        try:
            decoded.append({k: (json.loads(v) if k in JSON_COLUMNS else v) for k, v in row.items()})
        except ValueError as error:
            raise CorruptModelError(
                f"the catalog row of model {row.get('name')!r} has malformed JSON ({error})"
            ) from error
    return decoded


def current_versions(warehouse: Warehouse) -> dict[str, str]:
    """Model name -> current model id: the versions whose registered objects
    :func:`warehouse_ml.store.leftovers.vacuum` must keep."""
    return {row["name"]: row["model_id"] for row in list_models(warehouse)}


def _condition(**equal: str) -> exp.Expression:
    return exp.and_(*(exp.EQ(this=column(k), expression=literal(v)) for k, v in equal.items()))


def _leftovers(
    warehouse: Warehouse, record: ModelRecord, owned: list[Owned], replaced: list[ModelRecord]
) -> list[Owned]:
    """The objects of ``record``'s model that its publication makes useless: the replaced
    versions' tables, earlier model selections' comparisons (but the one ``record`` names), and
    tables other processes' fits of the name staged and left (a killed fit's), unless such a
    fit may still be running. A fit of this process drops what it staged when it fails
    (ownership.Staging), and one that has just done so may still show its tables in this
    transaction's snapshot: dropping them again would conflict with its drop and fail this
    publication (``vacuum`` removes what a failed drop left)."""
    replaced_ids = {old.model_id for old in replaced}
    selection = record.state.selection or ()
    staged = [
        o
        for o in owned
        if o.version
        and o.version != record.model_id
        and o.version not in replaced_ids
        and not leftovers.of_this_process(o)
    ]
    running = leftovers.alive(warehouse, staged, ownership.now()) if staged else set()
    return [
        o
        for o in owned
        if o.role not in MODEL_VIEWS
        and (
            o.version in replaced_ids
            or (not o.version and o.name.parts != selection)
            or (o in staged and o.session not in running)
        )
    ]


def publish(
    warehouse: Warehouse,
    record: ModelRecord,
    read_state: StateReader,
    rebuild_views: Callable[[ModelRecord, list[Owned]], None],
    replacing: str | None = None,
) -> None:
    """Make ``record`` (whose tables exist, registered) the model of its name, atomically.

    In one transaction: the old catalog row is read and replaced, the model's registered views
    are rebuilt by ``rebuild_views`` (given the new record and the views' registry rows), and
    the objects the publication makes useless are dropped (:func:`_leftovers`: the old
    version's tables, an earlier model selection's comparison, what a killed fit of the name
    left). If anything fails, the transaction rolls back; the caller's staging drops the new
    tables.

    Concurrent fits of one name: the old row is deleted by name AND model id, and the name must
    then have exactly one row, this one. A fit whose old row another connection replaced
    meanwhile therefore fails with ConcurrentFitError instead of deleting the other fit's row
    and orphaning its tables: PostgreSQL waits for the other transaction's row lock and then
    finds the row changed; DuckDB refuses the second writer of a row or table at once (a
    write-write conflict, :meth:`Warehouse.write_conflict`), which is the same error here. Two
    concurrent FIRST fits of a new name cannot see each other before they commit and may both
    insert a row; the next fit of that name replaces (and drops the tables of) every row.

    ``replacing``: the version the new one was made from (an update, which adds to that
    version's counts); the name must still hold exactly that version. ``read_state`` reads
    the replaced rows' states.

    Raises:
        ConcurrentFitError: another connection published a model of this name meanwhile.
    """
    try:
        with warehouse.transaction():
            _swap(warehouse, record, read_state, rebuild_views, replacing)
    except Exception as error:
        if not warehouse.write_conflict(error):
            raise
        way_out = (
            "run it again" if replacing is None else "load the model and apply the batch again"
        )
        raise ConcurrentFitError(
            f"model {record.name!r} was published by another connection at the same moment as "
            f"this {'fit' if replacing is None else 'update'} (the engine reports a write-write "
            f"conflict: {str(error).splitlines()[0]}); it was rolled back: {way_out}"
        ) from error


def _swap(
    warehouse: Warehouse,
    record: ModelRecord,
    read_state: StateReader,
    rebuild_views: Callable[[ModelRecord, list[Owned]], None],
    replacing: str | None,
) -> None:
    """The statements of :func:`publish`'s transaction."""
    table = catalog_table(warehouse)
    replaced = _rows(warehouse, record.name, read_state)
    if replacing is not None and [r.model_id for r in replaced] != [replacing]:
        raise ConcurrentFitError(
            f"model {record.name!r} was changed by another connection while this update "
            f"was running (it started from version {replacing!r}, the catalog now holds "
            f"{[r.model_id for r in replaced]}); this update was rolled back: load the "
            "model and apply the batch again"
        )
    for old in replaced:
        warehouse.run(
            "delete_rows_where",
            table=table,
            condition=_condition(name=record.name, model_id=old.model_id),
        )
    warehouse.run("insert_rows_from", table=table, rows=row_values(record))
    now_there = [r["model_id"] for r in _raw_rows(warehouse, record.name)]
    if now_there != [record.model_id]:
        raise ConcurrentFitError(
            f"model {record.name!r} was published by another connection while this fit was "
            f"publishing (catalog rows {now_there}, expected only {record.model_id!r}); "
            "this fit was rolled back: run it again"
        )
    owned = ownership.owned_by(warehouse, "model", record.name)
    rebuild_views(record, [o for o in owned if o.role in MODEL_VIEWS])
    ownership.release(warehouse, _leftovers(warehouse, record, owned, replaced))
    for old in replaced:
        if old.format_version < REGISTERED_FORMAT:
            for part in old.parts:
                warehouse.run("drop_table", table=old.table(part))


def registered_views(warehouse: Warehouse, model: str) -> list[Owned]:
    """The registry rows of ``model``'s prediction and explanation views."""
    return [o for o in ownership.owned_by(warehouse, "model", model) if o.role in MODEL_VIEWS]


def refuse_dependents(warehouse: Warehouse, items: Sequence[Owned], action: str) -> None:
    """A DependentObjectError, before anything is dropped, when an object outside ``items``
    reads one of them and so keeps the engine from dropping it (PostgreSQL: a user's view over
    a prediction view; :meth:`Warehouse.dependent_objects`, none on DuckDB and Spark)."""
    dropped = {item.key for item in items}
    for item in items:
        outside = [
            d
            for d in warehouse.dependent_objects(item.name)
            if warehouse.resolve_target(d).key not in dropped
        ]
        if outside:
            raise DependentObjectError(
                f"cannot {action}: {item.kind} {item.name} is read by "
                f"{[str(d) for d in outside]}, which warehouse-ml does not own (the engine drops "
                "nothing other views read). Nothing was changed: drop those objects or define "
                "them without it first"
            )


def drop(warehouse: Warehouse, name: str, read_state: StateReader) -> None:
    """Remove model ``name``: its catalog row(s), parameter tables and registered views; an
    object of the user's that reads one of them is a DependentObjectError before anything is
    dropped (:func:`refuse_dependents`). ``read_state`` reads the rows' states."""
    read(warehouse, name, read_state)  # ModelNotFoundError when there is none
    refuse_dependents(
        warehouse, ownership.owned_by(warehouse, "model", name), f"drop model {name!r}"
    )
    with warehouse.transaction():
        records = _rows(warehouse, name, read_state)
        ownership.release(warehouse, ownership.owned_by(warehouse, "model", name))
        warehouse.run(
            "delete_rows_where", table=catalog_table(warehouse), condition=_condition(name=name)
        )
        for record in records:
            if record.format_version < REGISTERED_FORMAT:
                for part in record.parts:
                    warehouse.run("drop_table", table=record.table(part))
    warehouse.after_drop()
