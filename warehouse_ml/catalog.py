"""The model catalog: parameter tables and one metadata row per model, in schema ``wml``.

A model's parameters live in ordinary tables named ``wml.<model_id>_<part>``; the catalog table
``wml.models`` maps the model's name to its current ``model_id``. A (re-)fit writes a complete
new set of tables under a fresh id, then, in one transaction, swaps the catalog row, rebuilds the
model's registered prediction views and drops the old tables. Readers therefore see the old model
or the new one, never a mix, and a fit that fails leaves the old model untouched.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from warehouse_ml import templates
from warehouse_ml.errors import (
    ConcurrentFitError,
    IncompatibleModelError,
    ModelNotFoundError,
    ParameterError,
)
from warehouse_ml.templates import TableName
from warehouse_ml.warehouse import Warehouse

SCHEMA = "wml"
CATALOG = TableName((SCHEMA, "models"))
VIEW_REGISTRY = TableName((SCHEMA, "views"))
FORMAT_VERSION = 1
CATALOG_COLUMNS = (
    "name", "model_id", "kind", "target", "target_type", "features", "feature_types",
    "smoothing", "source", "n_rows", "n_null_target", "classes", "details", "created_at",
    "library_version", "format_version",
)  # fmt: skip
JSON_COLUMNS = ("features", "feature_types", "smoothing", "classes", "details")


@dataclass(frozen=True)
class ModelRecord:
    """One catalog row, decoded. JSON columns are Python objects here."""

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

    def table(self, part: str) -> TableName:
        """The name of one of this model's parameter tables."""
        return parameter_table(self.model_id, part)


def parameter_table(model_id: str, part: str) -> TableName:
    """``wml.<model_id>_<part>``."""
    return TableName((SCHEMA, f"{model_id}_{part}"))


def part_namer(model_id: str, parts: list[str]) -> Callable[[str], TableName]:
    """The table of a new part of model ``model_id``; the part is appended to ``parts`` first,
    so that a failure while creating it drops it (:func:`staging`)."""

    def table(part: str) -> TableName:
        parts.append(part)
        return parameter_table(model_id, part)

    return table


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


def ensure(warehouse: Warehouse) -> None:
    """Create schema ``wml``, the catalog and the view registry if they do not exist."""
    warehouse.run("create_schema", schema=SCHEMA)
    warehouse.run("create_catalog", table=CATALOG)
    warehouse.run("create_view_registry", table=VIEW_REGISTRY)


def _decode(row: dict[str, Any]) -> ModelRecord:
    if row["format_version"] > FORMAT_VERSION:
        raise IncompatibleModelError(
            f"model {row['name']!r} was written in catalog format {row['format_version']} by "
            f"warehouse-ml {row['library_version']}; this version reads format {FORMAT_VERSION} "
            "or older: upgrade warehouse-ml or re-fit the model"
        )
    values = {k: (json.loads(row[k]) if k in JSON_COLUMNS else row[k]) for k in CATALOG_COLUMNS}
    return ModelRecord(**values)


def read(warehouse: Warehouse, name: str) -> ModelRecord:
    """The catalog row of model ``name``; ModelNotFoundError if there is none."""
    if not warehouse.exists(CATALOG):
        raise ModelNotFoundError(f"no model {name!r}: this database has no model catalog yet")
    rows = _rows(warehouse, name)
    if not rows:
        known = [r["name"] for r in list_models(warehouse)]
        raise ModelNotFoundError(f"no model {name!r} in {CATALOG}; models here: {known}")
    return rows[0]


def _rows(warehouse: Warehouse, name: str) -> list[ModelRecord]:
    """Every catalog row of ``name`` (one, except after two concurrent FIRST fits of a name,
    see :func:`publish`)."""
    rows = warehouse.fetch("select_model_row", table=CATALOG, name=name).to_pylist()
    return [_decode(row) for row in rows]


def _drop_tables(warehouse: Warehouse, records: list[ModelRecord]) -> None:
    for record in records:
        for part in record.details.get("tables", []):
            warehouse.run("drop_table", table=record.table(part))


def list_models(warehouse: Warehouse) -> list[dict[str, Any]]:
    """Every catalog row as a dict (JSON columns decoded), by name."""
    if not warehouse.exists(CATALOG):
        return []
    rows = warehouse.fetch("select_catalog", table=CATALOG).to_pylist()
    return [{k: (json.loads(v) if k in JSON_COLUMNS else v) for k, v in r.items()} for r in rows]


def _row_values(record: ModelRecord) -> templates.exp.Values:
    values = []
    for column in CATALOG_COLUMNS:
        value = getattr(record, column)
        if column in JSON_COLUMNS:
            value = json.dumps(value, sort_keys=True, default=str)
        elif column == "created_at":  # typed: PostgreSQL will not insert text as TIMESTAMP
            value = templates.exp.cast(
                templates.literal(value.isoformat(sep=" ")), templates.exp.DataType.Type.TIMESTAMP
            )
        values.append(value)
    return templates.values([values], "r", CATALOG_COLUMNS)


@contextlib.contextmanager
def staging(warehouse: Warehouse, model_id: str, parts: list[str]) -> Iterator[None]:
    """Drop every table of ``model_id`` named in ``parts`` if the enclosed block fails or is
    interrupted (any BaseException: KeyboardInterrupt included), then re-raise.

    The clean-up goes on past a failing drop, and a drop interrupted by a second Ctrl-C is tried
    once more, so that a user pressing Ctrl-C twice still leaves no partial table.
    """
    try:
        yield
    except BaseException:
        for part in parts:
            for _attempt in range(2):
                try:
                    warehouse.run("drop_table", table=parameter_table(model_id, part))
                    break
                except (Exception, KeyboardInterrupt):
                    continue
        raise


def publish(
    warehouse: Warehouse,
    record: ModelRecord,
    parts: list[str],
    rebuild_views: Callable[[ModelRecord], None],
) -> None:
    """Make ``record`` (whose tables exist) the model of its name, atomically.

    In one transaction: the old catalog row is read and replaced, the model's registered views
    are rebuilt by ``rebuild_views``, and the old model's parameter tables are dropped. If
    anything fails, the transaction rolls back and the new tables are dropped instead.

    Concurrent fits of one name: the old row is deleted by name AND model id, and the name must
    then have exactly one row, this one. A fit whose old row another connection replaced
    meanwhile therefore fails (PostgreSQL: ConcurrentFitError; DuckDB: its own write-write
    conflict error) instead of deleting the other fit's row and orphaning its tables. Two
    concurrent FIRST fits of a new name cannot see each other before they commit and may both
    insert a row; the next fit of that name replaces (and drops the tables of) every row.

    Raises:
        ConcurrentFitError: another connection published a model of this name meanwhile.
    """
    with staging(warehouse, record.model_id, parts), warehouse.transaction():
        replaced = _rows(warehouse, record.name)
        for old in replaced:
            warehouse.run(
                "delete_catalog_version", table=CATALOG, name=record.name, model_id=old.model_id
            )
        warehouse.run("insert_catalog_row", table=CATALOG, row=_row_values(record))
        now_there = [r.model_id for r in _rows(warehouse, record.name)]
        if now_there != [record.model_id]:
            raise ConcurrentFitError(
                f"model {record.name!r} was published by another connection while this fit was "
                f"publishing (catalog rows {now_there}, expected only {record.model_id!r}); "
                "this fit was rolled back: run it again"
            )
        rebuild_views(record)
        _drop_tables(warehouse, replaced)


def registered_views(warehouse: Warehouse, model: str) -> list[dict[str, Any]]:
    """The registry rows of ``model``'s prediction views (JSON columns decoded)."""
    rows = warehouse.fetch("select_model_views", table=VIEW_REGISTRY, model=model).to_pylist()
    return [{k: json.loads(v) if k != "model" else v for k, v in r.items()} for r in rows]


def register_view(
    warehouse: Warehouse, view: TableName, model: str, source: Any, options: dict[str, Any]
) -> None:
    """Record a prediction view (replacing any earlier record of the same view name)."""
    key = json.dumps(list(view.parts))
    warehouse.run("delete_view_row", table=VIEW_REGISTRY, view_name=key)
    row = templates.values(
        [(key, model, json.dumps(source), json.dumps(options, sort_keys=True))],
        "r",
        ("view_name", "model", "source", "options"),
    )
    warehouse.run("insert_view_row", table=VIEW_REGISTRY, row=row)


def drop(warehouse: Warehouse, name: str) -> None:
    """Remove model ``name``: its catalog row(s), parameter tables and registered views."""
    read(warehouse, name)  # ModelNotFoundError when there is none
    with warehouse.transaction():
        records = _rows(warehouse, name)
        for view in registered_views(warehouse, name):
            warehouse.run("drop_view", view=TableName(tuple(view["view_name"])))
            warehouse.run(
                "delete_view_row", table=VIEW_REGISTRY, view_name=json.dumps(view["view_name"])
            )
        warehouse.run("delete_catalog_row", table=CATALOG, name=name)
        _drop_tables(warehouse, records)


def now() -> dt.datetime:
    """Current UTC time without tzinfo (stored as TIMESTAMP)."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
