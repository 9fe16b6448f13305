"""What crashed or abandoned calls left, and how it is found and removed (the guest contract,
warehouse_ml/store/ownership.py): registered objects whose owner is gone, registry rows whose
object a killed call never made, and unregistered tables in ``wml`` named like the library's.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from warehouse_ml.engines.base import LIBRARY_SCHEMA, PROCESS, ObjectName, Warehouse
from warehouse_ml.store.ownership import (
    MODEL,
    RUNNING,
    SESSION,
    Owned,
    drop_object,
    library_object,
    now,
    owned,
    owned_by,
    release,
)

LEFTOVER_NAMES = re.compile(r"^(m[0-9a-f]{16}|(cv|ev|loo|sel|split)[0-9a-f]{12}(_[a-z0-9]+)?)_")
"""Names of the tables fits and evaluations create in ``wml``: what :func:`vacuum` may remove
when nothing references it."""


def _session_parts(session: str) -> tuple[str, str]:
    """(engine session, process) of a registry session value ``engine|process|serial``."""
    engine, process, *_ = [*session.split("|"), "", ""]
    return engine, process


def alive(warehouse: Warehouse, rows: Sequence[Owned], cutoff: dt.datetime) -> set[str]:
    """The sessions of ``rows`` that may still be creating objects: this process's running
    calls, sessions the engine knows to be alive, and sessions the engine cannot tell about
    (Spark) that created their objects after ``cutoff``."""
    mine = {r.session for r in rows if _session_parts(r.session)[1] == PROCESS}
    others = {_session_parts(r.session)[0] for r in rows} - {""}
    known = warehouse.live_sessions(others) if others else set()
    alive = {s for s in mine if s in RUNNING}
    for row in rows:
        engine, process = _session_parts(row.session)
        if process == PROCESS:
            continue
        if engine in known and (
            warehouse.KNOWS_SESSIONS or row.created_at is None or row.created_at > cutoff
        ):
            alive.add(row.session)
    return alive


def _removable(
    warehouse: Warehouse, row: Owned, running: set[str], current_versions: dict[str, str]
) -> bool:
    """Whether a registered object is a leftover: a model's object its model no longer names
    (and no running call is making), a session object whose session has ended (for this
    process's sessions: whose temporary table is gone), or the registry row of a kept object
    that does not exist and that no running call is making (a call killed between
    registering a name and creating the object, or an object the user dropped)."""
    if row.lifetime == MODEL:
        if row.version:
            current = current_versions.get(row.owner) == row.version
        else:
            current = row.owner in current_versions
        return not current and row.session not in running
    if row.lifetime == SESSION and _session_parts(row.session)[1] != PROCESS:
        return row.session not in running
    return (
        row.session not in running
        and warehouse.relation_kind(ObjectName(row.name, row.key)) is None
    )


def vacuum(
    warehouse: Warehouse,
    current_versions: dict[str, str],
    legacy_tables: set[str],
    *,
    owner: str | None = None,
    older_than: dt.timedelta = dt.timedelta(days=1),
) -> list[Owned]:
    """Remove what crashed or abandoned calls left, and return what was removed.

    Removed: registered objects of lifetime ``model`` whose version is not the current one of
    its model (``current_versions``: model name -> model id; a model's views live while the
    model does), unless the call that made them may still be running (this process's running
    calls; sessions the engine reports alive: PostgreSQL backends; on Spark, which cannot
    tell, sessions younger than ``older_than``); of lifetime ``session``, those whose session
    has ended (this process's own: those whose temporary table is gone); registry rows of
    kept objects that do not exist (a call killed between registering and creating); and
    unregistered tables in ``wml`` named like the library's (:data:`LEFTOVER_NAMES`) that no
    catalog row names (``legacy_tables``: parameter tables of models stored by earlier
    versions). Existing kept objects, the catalog and the registry are never touched, nor is
    anything outside ``wml`` that the registry does not hold.

    Args:
        owner: only this model's leftovers (a fit of that name cleans up after itself).
        older_than: see above (Spark only).
    """
    rows = owned(warehouse) if owner is None else owned_by(warehouse, "model", owner)
    running = alive(warehouse, rows, now() - older_than)
    removed = [row for row in rows if _removable(warehouse, row, running, current_versions)]
    release(warehouse, removed)
    if owner is None:
        registered = {r.key for r in rows}
        for name, kind in warehouse.schema_objects(LIBRARY_SCHEMA):
            target = library_object(warehouse, warehouse.library_table(name))
            if (
                kind == "table"
                and LEFTOVER_NAMES.match(name)
                and target.key not in registered
                and name not in legacy_tables
            ):
                item = Owned(
                    target.key, target.parts, "table", "", "", "", "", "", "", None, "", {}
                )
                drop_object(warehouse, item)
                removed.append(item)
    if removed:
        warehouse.after_drop()
    return removed
