"""Catalog-level functions of the public API: load, drop and list models; the objects the
library owns (list, drop a view, vacuum what crashed calls left)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

import pyarrow as pa

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.errors import NameConflictError, ViewRebuildError
from warehouse_ml.models import kinds
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.reading import read_state
from warehouse_ml.models.state import read_common_state
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.store import catalog, leftovers, ownership


def _model(warehouse: Warehouse, name: str) -> Classifier:
    """The fitted model ``name``: its record read from the catalog, the model of its kind."""
    record = catalog.read(warehouse, name, read_state)
    return kinds.class_of(record.kind, record.name).from_record(record)


def load(con: Connectable, name: str) -> Classifier:
    """The fitted model ``name`` from the catalog of ``con``, whatever its kind."""
    with session(con) as warehouse:
        return _model(warehouse, name)


def drop(con: Connectable, name: str) -> None:
    """Remove model ``name``: its catalog row, parameter tables and registered views."""
    with session(con) as warehouse:
        catalog.drop(warehouse, name, read_common_state)


def list_models(con: Connectable) -> pa.Table:
    """The catalog as an Arrow table, one row per model (JSON columns as text)."""
    with session(con) as warehouse:
        rows = catalog.list_models(warehouse)
    return pa.Table.from_pylist(
        [
            {k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in row.items()}
            for row in rows
        ]
    )


OBJECT_COLUMNS = pa.schema(
    [
        ("object_name", pa.string()),
        ("object_kind", pa.string()),
        ("owner_kind", pa.string()),
        ("owner", pa.string()),
        ("role", pa.string()),
        ("lifetime", pa.string()),
        ("created_by", pa.string()),
        ("created_at", pa.timestamp("us")),
    ]
)


def _objects_table(items: Sequence[ownership.Owned]) -> pa.Table:
    return pa.Table.from_pylist(
        [
            {
                "object_name": str(o.name),
                "object_kind": o.kind,
                "owner_kind": o.owner_kind,
                "owner": o.owner,
                "role": o.role,
                "lifetime": o.lifetime,
                "created_by": o.created_by,
                "created_at": o.created_at,
            }
            for o in items
        ],
        schema=OBJECT_COLUMNS,
    )


def list_objects(con: Connectable) -> pa.Table:
    """Every object warehouse-ml owns in this database (the registry ``wml.objects``), one row
    each: object_name, object_kind ('table', 'view'), owner_kind ('model', 'evaluation',
    'split', 'measure', 'prediction_table', 'demo'), owner, role, lifetime ('model',
    'session', 'kept'), created_by (the public call), created_at (TIMESTAMP, UTC)."""
    with session(con) as warehouse:
        return _objects_table(ownership.owned(warehouse))


def vacuum(con: Connectable) -> pa.Table:
    """Remove what crashed or abandoned calls left (leftovers.vacuum: staged model versions no
    catalog row names, temporary evaluation tables of ended sessions, registry rows of
    objects a killed call never made) and return what was removed (columns as
    :func:`list_objects`). Only objects the registry records as the library's are removed,
    whatever other tables in ``wml`` are named; nothing else is touched."""
    with session(con, "vacuum") as warehouse:
        catalog.ensure(warehouse)
        removed = leftovers.vacuum(warehouse, catalog.current_versions(warehouse))
    return _objects_table(removed)


def _owned_view(warehouse: Warehouse, view: str | Sequence[str]) -> ownership.Owned:
    target = warehouse.resolve_target(TableName.parse(view))
    rows = [o for o in ownership.owned(warehouse) if o.key == target.key and o.kind == "view"]
    if not rows:
        raise NameConflictError(
            f"{target} is not a view warehouse-ml made; it is left alone (drop it yourself if "
            "it is yours)"
        )
    return rows[0]


def drop_view(con: Connectable, view: str | Sequence[str]) -> None:
    """Drop a view warehouse-ml made (a model's prediction view, which the model then no longer
    rebuilds, or a measure view). A view the library does not own is a NameConflictError."""
    with session(con) as warehouse:
        owned = _owned_view(warehouse, view)
        catalog.refuse_dependents(warehouse, [owned], f"drop view {owned.name}")
        ownership.release(warehouse, [owned])


def rebuild_views(
    con: Connectable, name: str, *, on_broken: Literal["raise", "drop"] = "raise"
) -> list[TableName]:
    """Rebuild every prediction view registered for model ``name`` over its current version
    and return their names. A view whose source no longer fits the model (a column dropped or
    retyped) raises :class:`~warehouse_ml.errors.ViewRebuildError` naming it, or with
    ``on_broken="drop"`` is dropped and unregistered (the others are rebuilt)."""
    with session(con) as warehouse:
        model = _model(warehouse, name)
        rebuilt = []
        for row in catalog.registered_views(warehouse, name):
            try:
                with warehouse.transaction():
                    model._rebuild_view(warehouse, model.record, row)
                rebuilt.append(row.name)
            except ViewRebuildError:
                if on_broken != "drop":
                    raise
                catalog.refuse_dependents(warehouse, [row], f"drop broken view {row.name}")
                ownership.release(warehouse, [row])
        return rebuilt


def registered_views(con: Connectable, name: str) -> list[TableName]:
    """The prediction views registered for model ``name`` (rebuilt by each of its fits)."""
    with session(con) as warehouse:
        return [o.name for o in catalog.registered_views(warehouse, name)]
