"""The model catalog: parameter tables and one metadata row per model, in schema ``wml``.

A model's parameters live in ordinary tables named ``wml.<model_id>_<part>``, each registered
in the object registry (:mod:`warehouse_ml.store.ownership`) before it is created; the catalog table
``wml.models`` maps the model's name to its current ``model_id``. A (re-)fit writes a complete
new set of tables under a fresh id, then, in one transaction, swaps the catalog row, rebuilds
the model's registered views and drops the old version's tables. Readers therefore see the old
model or the new one, never a mix, and a fit that fails leaves the old model untouched.

Catalog format 4 (this version) stores each class's probability column with the model
(``details["probability_columns"]``, [label, column] pairs in output order,
models/scoring/names.py): a class's column keeps its name across updates and re-fits; models of
formats 1 to 3 get the names the rule of their time gave (``names.probability_columns`` over their
classes). Format 3 gives every parameter table the model partition column ``wml_part``
(models/training.py). Format 2 keeps the model's views in the object registry
(format 1 had a table ``wml.views``, migrated on the first write) and records each parameter
table's row count and checksum (``details["checksums"]``, see
:mod:`warehouse_ml.store.integrity`). Models of formats 1 and 2 load and score (their tables
read as partition 0); format 1 models have no checksums ("unverified").
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import LIBRARY_SCHEMA, Warehouse
from warehouse_ml.errors import (
    ConcurrentFitError,
    CorruptModelError,
    DependentObjectError,
    IncompatibleModelError,
    ModelNotFoundError,
    ParameterError,
)
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column, literal
from warehouse_ml.store import leftovers, ownership
from warehouse_ml.store.ownership import Owned

SCHEMA = LIBRARY_SCHEMA
CATALOG_NAME = "models"
LEGACY_VIEWS = "views"
FORMAT_VERSION = 4
"""4: each class's probability column stored with the model (``details["probability_columns"]``;
older formats' names are derived by the rule of their time, models/scoring/names.py). 3: every
parameter table has column wml_part (the model's partition, 0 for a fitted model;
models/training.py). 2: parameter tables registered in the object registry and checksummed,
without wml_part (read as partition 0, :meth:`ModelRecord.parameters`). 1: neither."""
REGISTERED_FORMAT = 2
"""The first format whose parameter tables are owned through the object registry."""
PARTITIONED_FORMAT = 3
"""The first format whose parameter tables carry column wml_part."""
CATALOG_COLUMNS = (
    "name", "model_id", "kind", "target", "target_type", "features", "feature_types",
    "smoothing", "source", "n_rows", "n_null_target", "classes", "details", "created_at",
    "library_version", "format_version",
)  # fmt: skip
JSON_COLUMNS = ("features", "feature_types", "smoothing", "classes", "details")
PREDICTION_VIEW = "prediction_view"
"""Registry role of a model's prediction views (rebuilt with each fit of the model)."""

EXPLANATION_VIEW = "explanation_view"
"""Registry role of a model's explanation views (rebuilt with each fit of the model)."""

DRIFT_VIEW = "drift_view"
"""Registry role of a model's drift views (rebuilt with each fit or update of the model)."""

MODEL_VIEWS = (PREDICTION_VIEW, EXPLANATION_VIEW, DRIFT_VIEW)
"""The roles of the views a fit rebuilds."""


@dataclass(frozen=True)
class ModelRecord:
    """One catalog row, decoded. JSON columns are Python objects here.

    ``locations`` (not stored) names the parameter tables of a model that is not in the
    catalog (a cross-validation fold's, in temporary tables); catalogued models' tables are
    ``wml.<model_id>_<part>``.
    """

    name: str
    model_id: str
    kind: str
    target: str
    target_type: str
    features: list[str]
    feature_types: dict[str, dict[str, str]]
    smoothing: dict[str, Any]
    source: str
    n_rows: int
    n_null_target: int
    classes: list[Any]
    details: dict[str, Any] = field(default_factory=dict)
    created_at: dt.datetime | None = None
    library_version: str = ""
    format_version: int = FORMAT_VERSION
    locations: Mapping[str, TableName] | None = field(default=None, compare=False, repr=False)

    def table(self, part: str) -> TableName:
        """The name of one of this model's parameter tables."""
        if self.locations is not None:
            return self.locations[part]
        return parameter_table(self.model_id, part)

    def parameters(self, part: str) -> TableName | exp.Query:
        """What scoring reads of one parameter table: the table, or for a model stored before
        catalog format 3 the table with the column ``wml_part = 0`` it lacks."""
        table = self.table(part)
        if self.format_version >= PARTITIONED_FORMAT:
            return table
        return templates.build("select_as_partition_zero", table=table)

    def parameter_relation(self, part: str, alias: str) -> exp.Expression:
        """:meth:`parameters` of ``part`` under ``alias``, to read in a FROM or JOIN."""
        parameters = self.parameters(part)
        if isinstance(parameters, TableName):
            return parameters.to_table().as_(alias)
        return parameters.subquery(alias)

    @property
    def parts(self) -> list[str]:
        """The model's parameter tables, by part name."""
        return list(self.details.get("tables", []))


def parameter_table(model_id: str, part: str) -> TableName:
    """``wml.<model_id>_<part>``."""
    return TableName((SCHEMA, f"{model_id}_{part}"))


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


def _decode(row: dict[str, Any]) -> ModelRecord:
    name = row.get("name")
    try:
        if row["format_version"] > FORMAT_VERSION:
            raise IncompatibleModelError(
                f"model {name!r} was written in catalog format {row['format_version']} by "
                f"warehouse-ml {row['library_version']}; this version reads format "
                f"{FORMAT_VERSION} or older: upgrade warehouse-ml or re-fit the model"
            )
        values = {k: (json.loads(row[k]) if k in JSON_COLUMNS else row[k]) for k in CATALOG_COLUMNS}
        record = ModelRecord(**values)
        _check_record(record)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise CorruptModelError(
            f"the catalog row of model {name!r} in {SCHEMA}.{CATALOG_NAME} is malformed "
            f"({type(error).__name__}: {error}); expected the row a fit writes: re-fit the "
            "model or drop it"
        ) from error
    return record


def _check_record(record: ModelRecord) -> None:
    """The shape a fit writes (JSON columns of the right types, every feature typed)."""
    problems = []
    if not isinstance(record.features, list) or not all(
        isinstance(f, str) for f in record.features
    ):
        problems.append("features is not a list of column names")
    elif not isinstance(record.feature_types, dict) or any(
        not isinstance(record.feature_types.get(f), dict)
        or not {"kind", "sql_type"} <= set(record.feature_types[f])
        for f in record.features
    ):
        problems.append("feature_types does not give every feature's kind and type")
    if not isinstance(record.classes, list) or len(record.classes) < 2:
        problems.append("classes is not a list of at least two labels")
    if not isinstance(record.smoothing, dict) or not isinstance(record.details, dict):
        problems.append("smoothing or details is not a JSON object")
    if problems:
        raise ValueError("; ".join(problems))


def read(warehouse: Warehouse, name: str) -> ModelRecord:
    """The catalog row of model ``name``; ModelNotFoundError if there is none."""
    if not _exists(warehouse, CATALOG_NAME):
        raise ModelNotFoundError(f"no model {name!r}: this database has no model catalog yet")
    rows = _rows(warehouse, name)
    if not rows:
        known = [r["name"] for r in list_models(warehouse)]
        raise ModelNotFoundError(
            f"no model {name!r} in {SCHEMA}.{CATALOG_NAME}; models here: {known}"
        )
    return rows[0]


def find(warehouse: Warehouse, name: str) -> ModelRecord | None:
    """The catalog row of model ``name``, or None when there is none or it cannot be decoded
    (a corrupt row, or one of a newer format: a fit under the name replaces it)."""
    if not _exists(warehouse, CATALOG_NAME):
        return None
    try:
        rows = _rows(warehouse, name)
    except (CorruptModelError, IncompatibleModelError):
        return None
    return rows[0] if rows else None


def current_version(warehouse: Warehouse, name: str) -> str | None:
    """The model id the catalog holds for ``name`` now, or None."""
    if not _exists(warehouse, CATALOG_NAME):
        return None
    rows = _raw_rows(warehouse, name)
    return rows[0]["model_id"] if rows else None


def _raw_rows(warehouse: Warehouse, name: str) -> list[dict[str, Any]]:
    return warehouse.fetch(
        "select_rows_where",
        table=catalog_table(warehouse),
        condition=exp.EQ(this=column("name", "t"), expression=literal(name)),
        order_columns=[column("model_id", "t")],
    ).to_pylist()


def _rows(warehouse: Warehouse, name: str) -> list[ModelRecord]:
    """Every catalog row of ``name`` (one, except after two concurrent FIRST fits of a name,
    see :func:`publish`)."""
    return [_decode(row) for row in _raw_rows(warehouse, name)]


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


def _row_values(record: ModelRecord) -> exp.Values:
    values = []
    for name in CATALOG_COLUMNS:
        value = getattr(record, name)
        if name in JSON_COLUMNS:
            value = json.dumps(value, sort_keys=True, default=str)
        elif name == "created_at":  # typed: PostgreSQL will not insert text as TIMESTAMP
            value = exp.cast(literal(value.isoformat(sep=" ")), exp.DataType.Type.TIMESTAMP)
        values.append(value)
    return templates.values([values], "r", CATALOG_COLUMNS)


def _condition(**equal: str) -> exp.Expression:
    return exp.and_(*(exp.EQ(this=column(k), expression=literal(v)) for k, v in equal.items()))


def _leftovers(
    warehouse: Warehouse, record: ModelRecord, owned: list[Owned], replaced: list[ModelRecord]
) -> list[Owned]:
    """The objects of ``record``'s model that its publication makes useless: the replaced
    versions' tables, earlier model selections' comparisons (but the one ``record`` names), and
    tables other fits of the name staged and left (a killed fit's), unless such a fit may
    still be running."""
    replaced_ids = {old.model_id for old in replaced}
    selection = tuple(record.details.get("selection") or ())
    staged = [
        o
        for o in owned
        if o.version and o.version != record.model_id and o.version not in replaced_ids
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
    version's counts); the name must still hold exactly that version.

    Raises:
        ConcurrentFitError: another connection published a model of this name meanwhile.
    """
    try:
        with warehouse.transaction():
            _swap(warehouse, record, rebuild_views, replacing)
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
    rebuild_views: Callable[[ModelRecord, list[Owned]], None],
    replacing: str | None,
) -> None:
    """The statements of :func:`publish`'s transaction."""
    table = catalog_table(warehouse)
    replaced = _rows(warehouse, record.name)
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
    warehouse.run("insert_rows_from", table=table, rows=_row_values(record))
    now_there = [r.model_id for r in _rows(warehouse, record.name)]
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


def drop(warehouse: Warehouse, name: str) -> None:
    """Remove model ``name``: its catalog row(s), parameter tables and registered views; an
    object of the user's that reads one of them is a DependentObjectError before anything is
    dropped (:func:`refuse_dependents`)."""
    read(warehouse, name)  # ModelNotFoundError when there is none
    refuse_dependents(
        warehouse, ownership.owned_by(warehouse, "model", name), f"drop model {name!r}"
    )
    with warehouse.transaction():
        records = _rows(warehouse, name)
        ownership.release(warehouse, ownership.owned_by(warehouse, "model", name))
        warehouse.run(
            "delete_rows_where", table=catalog_table(warehouse), condition=_condition(name=name)
        )
        for record in records:
            if record.format_version < REGISTERED_FORMAT:
                for part in record.parts:
                    warehouse.run("drop_table", table=record.table(part))
    warehouse.after_drop()
