"""What crashed or abandoned calls left, and how it is found and removed (the guest contract,
warehouse_ml/store/ownership.py): registered objects whose owner is gone, and registry rows
whose object a killed call never made.

Only the registry says what is the library's. Every object the library creates is registered
before it is created (:class:`~warehouse_ml.store.ownership.Staging` commits a staged table's
row, under the call's token, before the statement creating the table; a claimed name is
registered in the transaction that creates it), so whatever a killed call left is a registered
object; a table in ``wml`` that the registry does not hold is someone else's, whatever its
name looks like, and is never touched.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from warehouse_ml.engines.base import PROCESS, ObjectName, Warehouse
from warehouse_ml.store.ownership import (
    MODEL,
    RUNNING,
    SESSION,
    Owned,
    now,
    owned,
    owned_by,
    release,
)


def _session_parts(session: str) -> tuple[str, str]:
    """(engine session, process) of a registry session value ``engine|process|serial``."""
    engine, process, *_ = [*session.split("|"), "", ""]
    return engine, process


def of_this_process(row: Owned) -> bool:
    """Whether a call of this process registered ``row``."""
    return _session_parts(row.session)[1] == PROCESS


def alive(warehouse: Warehouse, rows: Sequence[Owned], cutoff: dt.datetime) -> set[str]:
    """The sessions of ``rows`` that may still be creating objects: this process's running
    calls, sessions the engine knows to be alive, and sessions the engine cannot tell about
    (Spark) that created their objects after ``cutoff``."""
    mine = {r.session for r in rows if of_this_process(r)}
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
    *,
    owner: str | None = None,
    older_than: dt.timedelta = dt.timedelta(days=1),
) -> list[Owned]:
    """Remove what crashed or abandoned calls left, and return what was removed.

    Removed, among the objects the registry records as the library's (nothing else, whatever
    its name): those of lifetime ``model`` whose version is not the current one of its model
    (``current_versions``: model name -> model id; a model's views live while the model does),
    unless the call that made them may still be running (this process's running calls;
    sessions the engine reports alive: PostgreSQL backends; on Spark, which cannot tell,
    sessions younger than ``older_than``); of lifetime ``session``, those whose session has
    ended (this process's own: those whose temporary table is gone); and registry rows of kept
    objects that do not exist (a call killed between registering and creating). Existing kept
    objects, the catalog and the registry are never touched, nor is any object the registry
    does not hold.

    Args:
        owner: only this model's leftovers (a fit of that name cleans up after itself).
        older_than: see above (Spark only).
    """
    rows = owned(warehouse) if owner is None else owned_by(warehouse, "model", owner)
    running = alive(warehouse, rows, now() - older_than)
    removed = [row for row in rows if _removable(warehouse, row, running, current_versions)]
    release(warehouse, removed)
    if removed:
        warehouse.after_drop()
    return removed
