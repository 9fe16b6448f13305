"""The guest contract: warehouse-ml owns a registry of every object it creates, and replaces or
drops only what the registry says is its own.

The registry is the table ``wml.objects`` (columns in
warehouse_ml/sql/store/catalog/create_object_registry.sql). Each object is recorded under the
identity the engine resolves its name to (schema, case folding, PostgreSQL's 63-byte truncation:
:class:`warehouse_ml.engines.base.ObjectName`) BEFORE it is created, so a crash can leave an object
behind but never an object nobody can find:

* :class:`Staging` owns the objects one call creates under fresh names (a fit's parameter
  tables, a cross-validation's fold and prediction tables): each name is registered, then
  created; if the call fails or is interrupted, every object it created is dropped again;
* :func:`claim` checks a name the USER chose for a new object (a prediction view or table, a
  split table, a measure view, the demo's tables) before anything runs: a
  :class:`~warehouse_ml.errors.NameConflictError` when the name resolves to an object the
  library does not own, to an object of another kind, or to one of the call's own sources;
  otherwise the (library-owned) object of that name is replaced;
* :func:`warehouse_ml.store.leftovers.vacuum` removes what crashed calls left: registered
  objects whose owner is gone (a staged model version no catalog row names, a temporary table
  whose session has ended). An object the registry does not hold is never the library's,
  whatever its name.

Lifetimes: ``model`` (a model version's parameter tables and a model's views: as long as the
catalog names them), ``session`` (evaluation artefacts: until their owner drops them or their
session ends) and ``kept`` (until dropped explicitly).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.base import LIBRARY_SCHEMA, PROCESS, ObjectName, Warehouse
from warehouse_ml.errors import NameConflictError
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column, literal

REGISTRY = "objects"
COLUMNS = (
    "object_key", "object_name", "object_kind", "owner_kind", "owner", "version", "role",
    "lifetime", "created_by", "created_at", "session", "details",
)  # fmt: skip
MODEL, SESSION, KEPT = "model", "session", "kept"
"""Lifetimes (see the module docstring)."""

LIBRARY_TABLES = frozenset({"models", REGISTRY, "views"})
"""The library's own bookkeeping tables in ``wml`` (``views``: the registry of format 1)."""
RUNNING: set[str] = set()
"""Tokens of this process's calls that are creating objects right now (vacuum spares them)."""
_SERIAL = itertools.count()


@dataclass(frozen=True)
class Owned:
    """One registry row, decoded."""

    key: tuple[str, ...]
    name: TableName
    kind: str
    owner_kind: str
    owner: str
    version: str
    role: str
    lifetime: str
    created_by: str
    created_at: dt.datetime | None
    session: str
    details: dict[str, Any] = field(default_factory=dict)


def registry(warehouse: Warehouse) -> TableName:
    """The registry table, ``wml.objects``."""
    return warehouse.library_table(REGISTRY)


def ensure(warehouse: Warehouse) -> None:
    """Create schema ``wml`` and the registry if they do not exist (once per call)."""
    if REGISTRY in warehouse.known:
        return
    warehouse.run("create_schema", schema=LIBRARY_SCHEMA)
    warehouse.run("create_object_registry", table=registry(warehouse))
    warehouse.known.add(REGISTRY)


def now() -> dt.datetime:
    """Current UTC time without tzinfo (stored as TIMESTAMP)."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)


def library_object(warehouse: Warehouse, name: TableName) -> ObjectName:
    """The identity of a fresh name the library made itself (``wml.<...>`` or a temporary
    table's), without asking the engine."""
    parts = name.parts
    catalog = parts[0] if len(parts) == 3 else ""
    key = (warehouse.fold(catalog) if catalog else "", *(warehouse.fold(p) for p in parts[-2:]))
    return ObjectName(name, key)  # type: ignore[arg-type]


def _key_text(key: Sequence[str]) -> str:
    return json.dumps(list(key))


def _row(
    warehouse: Warehouse,
    target: ObjectName,
    kind: str,
    owner_kind: str,
    owner: str,
    *,
    version: str,
    role: str,
    lifetime: str,
    created_by: str,
    session: str,
    details: dict[str, Any],
) -> list[Any]:
    created = exp.cast(literal(now().isoformat(sep=" ")), exp.DataType.Type.TIMESTAMP)
    return [
        _key_text(target.key), json.dumps(list(target.parts.parts)), kind, owner_kind, owner,
        version, role, lifetime, created_by, created, session,
        json.dumps(details, sort_keys=True, default=str),
    ]  # fmt: skip


def _insert(warehouse: Warehouse, rows: list[list[Any]]) -> None:
    warehouse.run(
        "insert_rows_from", table=registry(warehouse), rows=templates.values(rows, "r", COLUMNS)
    )


def _where(column_name: str, values: Iterable[str]) -> exp.Expression:
    values = list(values)
    items = [literal(v) for v in values]
    if len(items) == 1:
        return exp.EQ(this=column(column_name), expression=items[0])
    return exp.In(this=column(column_name), expressions=items)


def _delete(warehouse: Warehouse, condition: exp.Expression) -> None:
    warehouse.run("delete_rows_where", table=registry(warehouse), condition=condition)


def _decode(row: dict[str, Any]) -> Owned:
    return Owned(
        key=tuple(json.loads(row["object_key"])),
        name=TableName(tuple(json.loads(row["object_name"]))),
        kind=row["object_kind"],
        owner_kind=row["owner_kind"],
        owner=row["owner"],
        version=row["version"],
        role=row["role"],
        lifetime=row["lifetime"],
        created_by=row["created_by"],
        created_at=row["created_at"],
        session=row["session"],
        details=json.loads(row["details"]),
    )


def owned(warehouse: Warehouse, condition: exp.Expression | None = None) -> list[Owned]:
    """Registry rows (all, or those satisfying ``condition`` over the registry's columns), in
    a fixed order; none when the registry does not exist yet."""
    if REGISTRY not in warehouse.known:
        if warehouse.relation_kind(library_object(warehouse, registry(warehouse))) is None:
            return []
        warehouse.known.add(REGISTRY)
    rows = warehouse.fetch(
        "select_rows_where",
        table=registry(warehouse),
        condition=exp.true() if condition is None else condition,
        order_columns=[column(c, "t") for c in ("owner_kind", "owner", "created_at", "role")],
    )
    return [_decode(r) for r in rows.to_pylist()]


def owned_by(warehouse: Warehouse, owner_kind: str, owner: str) -> list[Owned]:
    """The registry rows of one owner."""
    return owned(warehouse, exp.and_(_where("owner_kind", [owner_kind]), _where("owner", [owner])))


def drop_object(warehouse: Warehouse, item: Owned) -> None:
    if item.kind == "view":
        warehouse.run("drop_view", view=item.name)
    else:
        warehouse.run("drop_table", table=item.name)


def release(warehouse: Warehouse, items: Sequence[Owned]) -> None:
    """Drop registered objects and remove their registry rows. Views go first: PostgreSQL
    refuses to drop a table a view still reads."""
    if not items:
        return
    for item in sorted(items, key=lambda item: item.kind != "view"):
        drop_object(warehouse, item)
    _delete(warehouse, _where("object_key", [_key_text(i.key) for i in items]))


# -- objects a call creates under fresh names --------------------------------------------------
class Staging:
    """The objects one call creates under fresh names, owned from before their creation.

    :meth:`table` registers a new table's name and returns it; the caller creates it. Used as a
    context manager: if the block fails or is interrupted (any BaseException, a second Ctrl-C
    during the clean-up included), every object registered so far is dropped and its registry
    row removed. While the block runs,
    :func:`~warehouse_ml.store.leftovers.vacuum` leaves its objects alone.

    Args:
        warehouse: the engine.
        owner_kind, owner: who the objects belong to (``'model'`` and the model's name, or
            ``'evaluation'`` and the evaluation's id...).
        created_by: the public call.
        version: the prefix of the new tables' names (``wml.<version>_<role>``): a fresh model
            id. Ignored for temporary tables.
        lifetime: :data:`MODEL`, :data:`SESSION` or :data:`KEPT`.
        temporary: create the tables as the engine's temporary tables (they disappear with the
            session; where the engine has none, tables in ``wml``).
        registry_version: the version recorded in the registry, when it is not ``version``:
            ``""`` for an object of a model as a whole (a model selection's comparison),
            which lives as long as the model, whatever its version.
    """

    def __init__(
        self,
        warehouse: Warehouse,
        *,
        owner_kind: str,
        owner: str,
        created_by: str,
        version: str,
        lifetime: str,
        temporary: bool = False,
        registry_version: str | None = None,
    ) -> None:
        self.warehouse = warehouse
        self.owner_kind, self.owner, self.created_by = owner_kind, owner, created_by
        self.version, self.lifetime, self.temporary = version, lifetime, temporary
        self.registry_version = version if registry_version is None else registry_version
        self.token = f"{warehouse.session_token()}|{PROCESS}|{next(_SERIAL)}"
        self.items: list[Owned] = []

    def part(self, suffix: str) -> Staging:
        """The staging of one part of this call (e.g. one cross-validation fold's model): its
        tables are named with the version ``<version>_<suffix>`` and belong to this call (a
        failure drops them too)."""
        sub = Staging(
            self.warehouse, owner_kind=self.owner_kind, owner=self.owner,
            created_by=self.created_by, version=f"{self.version}_{suffix}",
            lifetime=self.lifetime, temporary=self.temporary,
        )  # fmt: skip
        sub.token, sub.items = self.token, self.items
        return sub

    def table(self, role: str, details: dict[str, Any] | None = None) -> TableName:
        """The name of a new table of this call, registered (the caller creates it).

        A temporary table of an engine that has them is owned by this call alone and not
        written to the registry: the engine drops it with the session, so a crash cannot leave
        it behind (on Spark, "temporary" tables are tables in ``wml``, registered with lifetime
        ``session``)."""
        return self.tables([role], details)[0]

    def tables(
        self, roles: Sequence[str], details: dict[str, Any] | None = None
    ) -> list[TableName]:
        """The names of new tables of this call, one per role, registered as :meth:`table`
        registers one but in one statement: a fit registers its parameter tables at once
        (each statement costs 1-2 ms of CPU, and as much again waiting for the engine's
        threads on a loaded machine)."""
        registered = not (self.temporary and self.warehouse.TEMPORARY_TABLES)
        named = self.warehouse.temporary_table if self.temporary else self.warehouse.library_table
        rows, items = [], []
        for role in roles:
            target = library_object(self.warehouse, named(f"{self.version}_{role}"))
            row = _row(
                self.warehouse, target, "table", self.owner_kind, self.owner,
                version=self.registry_version, role=role, lifetime=self.lifetime,
                created_by=self.created_by, session=self.token, details=details or {},
            )  # fmt: skip
            item = Owned(
                key=target.key, name=target.parts, kind="table", owner_kind=self.owner_kind,
                owner=self.owner, version=self.version, role=role,
                lifetime=self.lifetime if registered else "", created_by=self.created_by,
                created_at=None, session=self.token, details=details or {},
            )  # fmt: skip
            rows.append(row)
            items.append(item)
        if registered and rows:
            _insert(self.warehouse, rows)
        self.items.extend(items)
        return [item.name for item in items]

    def named(self, role: str) -> TableName:
        """The name of a table of this call registered earlier under ``role``."""
        return next(i.name for i in self._mine() if i.role == role)

    @property
    def roles(self) -> list[str]:
        """The roles registered so far (in this part), in order."""
        return [i.role for i in self._mine()]

    def _mine(self) -> list[Owned]:
        return [i for i in self.items if i.version == self.version]

    def _with_parts(self) -> list[Owned]:
        return [
            i
            for i in self.items
            if i.version == self.version or i.version.startswith(f"{self.version}_")
        ]

    def drop(self, roles: Iterable[str] | None = None) -> None:
        """Drop this staging's tables (those of ``roles``, or all, its parts' included) and
        their registry rows."""
        if roles is None:
            self._drop(self._with_parts())
            return
        wanted = set(roles)
        self._drop([i for i in self._mine() if i.role in wanted])

    def discard(self, roles: Iterable[str]) -> None:
        """Drop this call's intermediate tables of ``roles`` while the call goes on: ordinary
        statements, which a cancel interrupts like any other (the call's failure then drops
        what is left), unlike the clean-up of :meth:`drop`."""
        wanted = set(roles)
        chosen = [i for i in self._mine() if i.role in wanted]
        for item in chosen:
            drop_object(self.warehouse, item)
        registered = [i for i in chosen if i.lifetime]
        if registered:
            _delete(self.warehouse, _where("object_key", [_key_text(i.key) for i in registered]))
        self.items[:] = [i for i in self.items if i not in chosen]

    def _drop(self, chosen: list[Owned]) -> None:
        """Drop objects of this call; the clean-up goes on past a failing drop, and a drop
        interrupted by a second Ctrl-C is tried once more."""
        for item in chosen:
            for _attempt in range(2):
                try:
                    drop_object(self.warehouse, item)
                    break
                except (Exception, KeyboardInterrupt):
                    continue
        registered = [i for i in chosen if i.lifetime]
        if registered:
            with contextlib.suppress(Exception, KeyboardInterrupt):
                _delete(
                    self.warehouse, _where("object_key", [_key_text(i.key) for i in registered])
                )
        self.items[:] = [i for i in self.items if i not in chosen]

    def __enter__(self) -> Staging:
        RUNNING.add(self.token)
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: Any) -> None:
        try:
            if kind is not None:
                self._drop(list(self.items))
        finally:
            RUNNING.discard(self.token)


def work_tables(
    warehouse: Warehouse, *, owner_kind: str, owner: str, created_by: str, version: str
) -> Staging:
    """The staging of one call's intermediate tables: temporary (the session's), registered
    with lifetime :data:`SESSION`, to be dropped before the call returns."""
    return Staging(
        warehouse, owner_kind=owner_kind, owner=owner, created_by=created_by, version=version,
        lifetime=SESSION, temporary=True,
    )  # fmt: skip


# -- names the user chose ----------------------------------------------------------------------
@dataclass(frozen=True)
class Claim:
    """A checked name for a new object: ``target`` (where it goes) and the library's object of
    that name it replaces, if any."""

    target: ObjectName
    kind: str
    replaced: Owned | None


def claim(
    warehouse: Warehouse, name: TableName, kind: str, *, sources: Sequence[ObjectName] = ()
) -> Claim:
    """Check that a new ``kind`` ('table' or 'view') may be created under ``name``.

    Raises:
        NameConflictError (before anything runs): the name resolves to one of ``sources`` (the
        call's own inputs), to an object the registry does not hold (the user's), or to a
        library object of another kind; or the name is unqualified and the session's search
        path reaches a user's object of that name in another schema (the new object would
        hide it from every query of the name, or be hidden by it).
    """
    target = warehouse.resolve_target(name)
    for source in sources:
        if source.key == target.key:
            raise NameConflictError(
                f"{kind} {str(name)!r} would replace {source}, which this call reads; "
                "expected a new name for the output"
            )
    existing = warehouse.relation_kind(target)
    others = [
        located
        for located in (warehouse.visible(name) if len(name.parts) == 1 else [])
        if located.name.key != target.key
    ]
    keys = [target.key, *(o.name.key for o in others)]
    mine = {row.key: row for row in owned(warehouse, _where("object_key", map(_key_text, keys)))}
    replaced = mine.get(target.key)
    if existing is not None and replaced is None:
        raise NameConflictError(
            f"{existing} {target} already exists and was not created by warehouse-ml; it is "
            f"left alone: choose another name for the {kind}, or drop it yourself"
        )
    if existing is not None and replaced is not None and replaced.kind != kind:
        raise NameConflictError(
            f"{target} is a {replaced.kind} of warehouse-ml ({replaced.role} of "
            f"{replaced.owner_kind} {replaced.owner!r}), not a {kind}; drop it first or choose "
            "another name"
        )
    for other in others:
        if other.name.key not in mine:
            raise NameConflictError(
                f"{kind} {str(name)!r} would be created as {target}, but the session's search "
                f"path also reaches {other.kind} {other.name}, which was not created by "
                f"warehouse-ml: queries of {str(name)!r} would read one of the two in place of "
                f"the other; choose another name for the {kind} (or qualify it with a schema "
                "if that is what you want)"
            )
    return Claim(target, kind, replaced if existing is not None else None)


def create(
    warehouse: Warehouse,
    claimed: Claim,
    query: exp.Query,
    *,
    owner_kind: str,
    owner: str,
    role: str,
    created_by: str,
    lifetime: str,
    details: dict[str, Any] | None = None,
) -> TableName:
    """Create a claimed table or view as ``query``, recorded as the library's first, in one
    transaction (replacing the library's object of that name, if any); returns its name."""
    ensure(warehouse)
    with warehouse.transaction():
        name = take(
            warehouse, claimed, owner_kind=owner_kind, owner=owner, role=role,
            created_by=created_by, lifetime=lifetime, details=details,
        )  # fmt: skip
        if claimed.kind == "view":
            warehouse.run_tree(templates.create_view(name, query))
        else:
            warehouse.run_tree(templates.create_table_as(name, query))
    return name


def take(
    warehouse: Warehouse,
    claimed: Claim,
    *,
    owner_kind: str,
    owner: str,
    role: str,
    created_by: str,
    lifetime: str,
    details: dict[str, Any] | None = None,
) -> TableName:
    """Record a claimed name as the library's (replacing the object it replaces, if any) and
    return the name to create. Run it inside the transaction that creates the object."""
    if claimed.replaced is not None:
        drop_object(warehouse, claimed.replaced)
    _delete(warehouse, _where("object_key", [_key_text(claimed.target.key)]))
    row = _row(
        warehouse, claimed.target, claimed.kind, owner_kind, owner, version="", role=role,
        lifetime=lifetime, created_by=created_by,
        session=f"{warehouse.session_token()}|{PROCESS}|-", details=details or {},
    )  # fmt: skip
    _insert(warehouse, [row])
    return claimed.target.parts
