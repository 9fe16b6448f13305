"""Warehouse adapters: the one render-and-run choke point between the library and an engine.

Every statement the library runs goes through :meth:`Warehouse.run` or :meth:`Warehouse.fetch`
(templates) or :meth:`Warehouse.run_tree` / :meth:`Warehouse.fetch_tree` (sqlglot trees built
by :mod:`warehouse_ml.sqlgen.templates` helpers). Each executed statement is appended to
``Warehouse.log`` and passed to the optional ``on_sql`` callback, so users can see exactly what
ran in their warehouse. Inside :meth:`Warehouse.operation`, each statement is also reported to a
progress callback before it runs (see :mod:`warehouse_ml.progress`).

Engine facts live here, as attributes and methods of the adapters, not as comparisons of
dialect names elsewhere:

* **identity**: how the engine resolves a name to an object (:meth:`Warehouse.fold`: DuckDB
  ignores ASCII case, Spark all case, PostgreSQL keeps case and truncates names to 63 bytes;
  :meth:`Warehouse.resolve_target` / :meth:`Warehouse.resolve_existing` add the schema a name
  lands in or comes from), so the guest contract (:mod:`warehouse_ml.store.ownership`) compares
  objects as the engine does;
* **the user's connection** (:meth:`Warehouse.session`): every public call runs in a session
  that first reads the connection's state. An open user transaction (or a failed one) is a
  :class:`~warehouse_ml.errors.ConnectionStateError` before anything runs: the library's writes
  would otherwise commit or roll back with the user's. A DuckDB connection holding an unfinished
  result of the user's (``con.execute(...)`` not fetched to its end) is left alone: the call runs
  on a cursor of the same database (``connection.cursor()``), which sees committed tables but not
  the connection's TEMP tables or registered Arrow objects (a source that is then invisible is a
  typed error that says so). The library fetches every result it starts, so it never leaves an
  unfinished result or a transaction of its own behind.

Interrupts: Ctrl-C (SIGINT) while DuckDB runs a statement surfaces from DuckDB's Python client
as ``RuntimeError("Query interrupted")``; the adapter re-raises it as ``KeyboardInterrupt``, as
Python code expects. ``connection.interrupt()`` from another thread raises DuckDB's own
``duckdb.InterruptException``. Either way the statement has no effect, and the operation cleans
up as after any failed statement.
"""

from __future__ import annotations

import abc
import contextlib
import threading
import uuid
import weakref
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import texts
from warehouse_ml.errors import ConnectionStateError
from warehouse_ml.progress import ProgressCallback, Reporter, describe
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName

SqlCallback = Callable[[str], None]

PROCESS = uuid.uuid4().hex[:12]
"""This Python process's token: objects a process stages carry it (see :meth:`session_token`)."""

LIBRARY_SCHEMA = "wml"

_DEFERRED: weakref.WeakKeyDictionary[Any, list[Callable[[Warehouse], None]]] = (
    weakref.WeakKeyDictionary()
)
"""Work deferred to the next library call on a connection (:meth:`Warehouse.defer`), by the
driver's connection object (weakly: a closed and forgotten connection takes its work along)."""
_DEFERRED_LOCK = threading.RLock()


@dataclass(frozen=True)
class ObjectName:
    """A table or view name as the engine resolves it.

    Attributes:
        parts: the name to write in SQL: (schema, name), or (catalog, schema, name) when the
            object lives in another database than the current one.
        key: the engine's identity of the object, (catalog or '', schema, name) with each part
            folded as the engine compares names: two names with one key are one object.
    """

    parts: TableName
    key: tuple[str, str, str]

    def __str__(self) -> str:
        return str(self.parts)


@dataclass(frozen=True)
class Located:
    """An existing relation: its resolved name, ``kind`` ('table' or 'view') and whether it is a
    temporary object of this connection."""

    name: ObjectName
    kind: str
    temporary: bool


class Warehouse(abc.ABC):
    """An engine connection plus its SQL dialect and facts. Subclasses implement the primitives.

    Class attributes state what differs between engines:

    * ``dialect``: the sqlglot dialect of the engine;
    * ``IDENTIFIER_BYTES``: the longest name the engine keeps (longer ones are truncated), or
      None;
    * ``TEMPORARY_TABLES``: whether ``CREATE TEMPORARY TABLE`` makes a table that disappears
      with the session (DuckDB, PostgreSQL; Spark has temporary views only);
    * ``KNOWS_SESSIONS``: whether :meth:`live_sessions` knows which other sessions are alive
      (DuckDB: none can be while this one writes; PostgreSQL: its backends), or cannot tell
      (Spark: other applications may share the catalog).
    * ``MATERIALIZED_STEPS``: whether a query whose steps (CTEs) read each other's computed
      columns several times marks some steps ``AS MATERIALIZED``: PostgreSQL inlines every
      step into its readers, copying each expression wherever it is read, so an explanation
      (models/inspection/evidence.py) would grow to gigabytes in its planner; DuckDB and Spark keep
      a computed column computed once.
    * ``TOP_K_AGGREGATE``: whether the engine has an aggregate keeping the k smallest values of
      a group, structs ordered field by field included (DuckDB's ``MIN(value, k)``), by which
      a k-nearest-neighbour search bounds each row's k-th distance before it ranks the pairs
      within it, instead of sorting every pair (models/learners/neighbors/search.py).
    * ``LATERAL_TOP_K``: whether the engine runs a correlated ``LATERAL`` subquery ending in
      ``ORDER BY ... LIMIT k`` one outer row at a time (PostgreSQL), by which a
      k-nearest-neighbour search takes each scored row's k nearest with a bounded sort; an
      engine that decorrelates it into a search for every distinct outer row whatever the
      filter on them (Spark, DuckDB) does not declare it.
    """

    dialect: str = "duckdb"
    IDENTIFIER_BYTES: int | None = None
    TEMPORARY_TABLES: bool = True
    KNOWS_SESSIONS: bool = True
    MATERIALIZED_STEPS: bool = False
    TOP_K_AGGREGATE: bool = False
    LATERAL_TOP_K: bool = False

    def __init__(self, on_sql: SqlCallback | None = None) -> None:
        self.log: list[str] = []
        self.on_sql = on_sql
        self._reporter: Reporter | None = None
        self._depth = 0
        self.known: set[str] = set()
        """Names of the library's own tables known to exist in this session (a call does not
        ask the engine twice; :meth:`session` forgets them at the start of each call)."""

    # -- primitives every engine implements ---------------------------------------------
    @abc.abstractmethod
    def _execute(self, sql: str) -> None:
        """Run one statement that returns no rows."""

    @abc.abstractmethod
    def _query(self, sql: str) -> pa.Table:
        """Run one query and return all its rows."""

    def _schema(self, sql: str) -> pa.Schema:
        """The Arrow schema of a query that returns no rows, as :meth:`_query` gives it."""
        return self._query(sql).schema

    @abc.abstractmethod
    def register_arrow(self, data: pa.Table | pa.RecordBatchReader) -> TableName:
        """Make Arrow data queryable under a fresh temporary name and return that name."""

    @abc.abstractmethod
    def unregister(self, name: TableName) -> None:
        """Forget a name made by :meth:`register_arrow` or :meth:`register_relation`."""

    def register_relation(self, relation: Any) -> TableName | None:
        """Make a DuckDB relation (``con.sql(...)``) queryable where its rows are, under a fresh
        temporary name, and return that name; None when this engine cannot read it there (the
        caller then reads its rows as Arrow). Only DuckDB reads a relation of its own database."""
        return None

    @abc.abstractmethod
    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Run the enclosed statements atomically: all of them become visible, or none."""

    @property
    @abc.abstractmethod
    def native(self) -> Any:
        """The driver's object this adapter runs statements on (a DuckDB connection or cursor,
        a psycopg connection, a SparkSession), which session objects belong to (:meth:`defer`)."""

    @abc.abstractmethod
    def fold(self, part: str) -> str:
        """One name part as the engine compares names (its identity)."""

    @abc.abstractmethod
    def resolve_target(self, name: TableName) -> ObjectName:
        """Where a new table or view of this name would be created."""

    @abc.abstractmethod
    def resolve_existing(self, name: TableName) -> Located | None:
        """The relation this name reads (through the engine's search path), or None."""

    def visible(self, name: TableName) -> list[Located]:
        """Every relation ``name`` reaches through the engine's search path (temporary objects,
        then each schema of the path), in the order the engine looks; for a qualified name, the
        one it names. An unqualified name that reaches several objects reads the first: a new
        object under that name hides those after it, or is hidden by those before it.

        Here the engine looks in one schema (its current one): the relation
        :meth:`resolve_existing` finds, if any."""
        located = self.resolve_existing(name)
        return [] if located is None else [located]

    @abc.abstractmethod
    def session_token(self) -> str:
        """The engine's identity of this connection's session (stored with the objects a call
        creates, see :mod:`warehouse_ml.store.ownership`)."""

    @abc.abstractmethod
    def live_sessions(self, tokens: set[str]) -> set[str]:
        """Those of ``tokens`` (:meth:`session_token` values of OTHER processes) whose session
        may still be running: the objects they staged are then left alone by
        :func:`warehouse_ml.store.leftovers.vacuum`."""

    @abc.abstractmethod
    def schema_objects(self, schema: str) -> list[tuple[str, str]]:
        """(name, 'table' or 'view') of every object in ``schema`` of the current database."""

    def _usable(self) -> Warehouse:
        """The adapter a new session runs on: this one, or (DuckDB) a cursor when the user's
        connection holds an unfinished result; ConnectionStateError in a user transaction."""
        return self

    def write_conflict(self, error: Exception) -> bool:
        """Whether ``error``, raised inside :meth:`transaction`, means that another connection
        wrote the same rows or objects at the same moment and the transaction was rolled back
        for it. Here never: the engine has no transactions (Spark); PostgreSQL's and DuckDB's
        adapters say which of their errors are such conflicts."""
        return False

    def after_drop(self) -> None:  # noqa: B027 - most engines need nothing
        """Give the space of dropped tables back where the engine needs to be told (DuckDB
        files: CHECKPOINT). Best effort."""

    @property
    def sees_user_objects(self) -> bool:
        """Whether this adapter sees the user connection's temporary objects (False for a
        DuckDB cursor opened because the connection was busy)."""
        return True

    def views_read_library(self) -> str | None:
        """None when a view can read the library's tables in ``wml``; else why not."""
        return None

    def read_only(self) -> str | None:
        """Why this connection cannot write (e.g. a database opened read-only), or None when
        it can, or the engine refuses writes by itself."""
        return None

    def require_scan_order(self, keys: Sequence[str]) -> None:
        """Refuse (ConnectionStateError) rows only their order tells apart (no ``keys``)."""
        return None

    def require_writing(self, what: str) -> None:
        """Refuse (ConnectionStateError) a call that writes ``what`` (e.g. "the resample's
        table") on a connection that cannot write (:meth:`read_only`), before anything runs."""
        why = self.read_only()
        if why is not None:
            raise ConnectionStateError(
                f"{why}, and this call writes {what}; open the database for writing (e.g. "
                "duckdb.connect(path) without read_only=True) to run it"
            )

    def exact_float_text(self) -> contextlib.AbstractContextManager[None]:
        """Within the block, DOUBLE values cast to text are their shortest exact form whatever
        the session's settings (integrity.py checksums such text)."""
        return contextlib.nullcontext()

    # -- sessions ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def session(self) -> Iterator[Warehouse]:
        """The adapter one public call runs on (see the module docstring); nested calls of the
        library (a select_model fitting a model) share the outermost session."""
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        self._forget_facts()
        self.known.clear()
        usable = self._usable()
        usable._depth += 1
        try:
            usable._run_deferred()
            yield usable
        finally:
            usable._depth -= 1

    def defer(self, work: Callable[[Warehouse], None]) -> None:
        """Have ``work`` run on this connection at the start of its next library call (the
        outermost :meth:`session`), given that call's adapter. For finalizers, which may run in
        any thread at any moment (in the middle of another statement, or of a user's
        transaction) and so must never run SQL themselves: e.g. a garbage-collected
        evaluation's temporary tables (evaluation/result.py)."""
        with _DEFERRED_LOCK:
            _DEFERRED.setdefault(self.native, []).append(work)

    def _run_deferred(self) -> None:
        """Run the work deferred to this connection (:meth:`defer`), each piece once. Best
        effort: a piece that fails (its table already gone with an earlier drop) is not run
        again and does not fail the user's call."""
        with _DEFERRED_LOCK:
            works = _DEFERRED.pop(self.native, [])
        for work in works:
            with contextlib.suppress(Exception):
                work(self)

    def _forget_facts(self) -> None:  # noqa: B027 - engines that cache facts override it
        """Facts read from the connection (current schema...) may have changed between calls."""

    # -- the choke point -----------------------------------------------------------------
    def _record(self, sql: str) -> str:
        self.log.append(sql)
        if self.on_sql is not None:
            self.on_sql(sql)
        return sql

    def _announce(self, tree: exp.Expression, template: str | None) -> None:
        """Report the statement about to run to the current operation's progress callback."""
        if self._reporter is not None:
            self._reporter.statement(describe(tree, template))

    TEMPORARY_SCHEMA: tuple[str, ...] = ()
    """The leading name parts of the engine's temporary tables (see :meth:`temporary_table`)."""

    def _prepare(self, tree: exp.Expression) -> exp.Expression:
        """A statement as the engine needs it: a table created under a temporary name
        (:meth:`temporary_table`) is created TEMPORARY."""
        if (
            self.TEMPORARY_SCHEMA
            and isinstance(tree, exp.Create)
            and tree.kind == "TABLE"
            and isinstance(tree.this, exp.Table)
            and tuple(p.name for p in tree.this.parts[:-1]) == self.TEMPORARY_SCHEMA
        ):
            tree.set("properties", exp.Properties(expressions=[exp.TemporaryProperty()]))
        return tree

    def generate(self, tree: exp.Expression) -> str:
        """SQL text of a statement for this engine."""
        return templates.generate(self._prepare(tree), self.dialect)

    def statements(self, tree: exp.Expression) -> list[exp.Expression]:
        """The engine statements that carry out one library statement, in order: itself here."""
        return [tree]

    def _run(self, tree: exp.Expression, template: str | None) -> None:
        for statement in self.statements(tree):
            self._announce(statement, template)
            self._execute(self._record(self.generate(statement)))

    def _fetch(self, tree: exp.Expression, template: str | None) -> pa.Table:
        self._announce(tree, template)
        return self._query(self._record(self.generate(tree)))

    def run_tree(self, tree: exp.Expression) -> None:
        """Execute a statement built as a sqlglot tree (as several engine statements where the
        engine needs it, see :meth:`statements`)."""
        self._run(tree, None)

    def fetch_tree(self, tree: exp.Expression) -> pa.Table:
        """Execute a query built as a sqlglot tree and return its rows as an Arrow table."""
        return self._fetch(tree, None)

    def fetch_text(self, sql: str) -> pa.Table:
        """Run a query this library generated for this engine earlier (models/scoring/compiled.py)
        and return its rows as an Arrow table."""
        if self._reporter is not None:
            self._reporter.statement("select")
        return self._query(self._record(sql))

    def run(self, template: str, /, **bindings: Any) -> None:
        """Render ``warehouse_ml/sql/<template>.sql`` for this engine and execute it."""
        self._run(templates.build(template, **bindings), template)

    def fetch(self, template: str, /, **bindings: Any) -> pa.Table:
        """Render ``warehouse_ml/sql/<template>.sql`` for this engine (:meth:`_rendered`) and return
        its rows as Arrow."""
        return self._query(self._reported(template, bindings))

    def _reported(self, template: str, bindings: dict[str, Any]) -> str:
        """:meth:`_rendered`'s text, its description reported and the text recorded."""
        description, text = self._rendered(template, bindings)
        if self._reporter is not None:
            self._reporter.statement(description)
        return self._record(text)

    def _rendered(self, template: str, bindings: dict[str, Any]) -> tuple[str, str]:
        """The progress description and the text of ``template`` bound to ``bindings`` on this
        engine: rendered once per process when the bindings are plain values (engines/texts.py),
        whose text depends only on the template, the dialect and :meth:`_text_context`."""
        values = texts.plain(bindings)
        key = (type(self), self.dialect, self._text_context(), template, values)

        def render() -> tuple[str, str]:
            tree = templates.build(template, **bindings)
            return describe(tree, template), self.generate(tree)

        return texts.kept(None if values is None else key, render)

    def _text_context(self) -> Hashable:
        """What, besides a statement's tree and the dialect, the text :meth:`generate` makes
        of it depends on (:meth:`_prepare`): here nothing."""
        return None

    @contextlib.contextmanager
    def operation(self, name: str, progress: ProgressCallback | None) -> Iterator[None]:
        """Report every statement run inside the block to ``progress`` as operation ``name``.

        Each statement is reported just before it runs, as a
        :class:`warehouse_ml.progress.Progress` (operation, 1-based statement number, phase,
        seconds since the operation started). Operations nest: inside an operation that is
        already reporting, the outer one keeps reporting (one numbering, one clock) and an inner
        ``progress`` is not used. ``progress=None`` reports nothing (unless an outer operation
        does). If the callback raises, the statement is not run and the exception propagates
        (see :mod:`warehouse_ml.progress`).
        """
        if progress is None or self._reporter is not None:
            yield
            return
        self._reporter = Reporter(name, progress)
        try:
            yield
        finally:
            self._reporter = None

    # -- helpers built on the primitives --------------------------------------------------
    def dependent_objects(self, name: TableName) -> list[TableName]:
        """The objects whose definition reads relation ``name`` and that keep the engine from
        dropping it or changing its columns (PostgreSQL: views over it). None by default:
        DuckDB and Spark bind a view's query when it is read, so no view blocks a drop or a
        new definition of another (a dependent view then fails when read if a column it
        reads is gone)."""
        return []

    def schema_of(self, relation: TableName | exp.Table) -> pa.Schema:
        """Column names and Arrow types of a table, view or table function, without reading rows."""
        return self._schema(self._reported("select_no_rows", {"source": relation}))

    def row_text(self, table: TableName) -> exp.Expression:
        """A row of ``table`` (alias ``t``) as text for checksums (integrity.py): every column,
        length-prefixed, NULL marked (warehouse_ml/sql/engines/checksum_cell.sql), or a cast."""
        cells = [
            templates.expression("checksum_cell", value=templates.column(n, "t"))
            for n in self.schema_of(table).names
        ]
        bar = templates.literal("|")
        text = cells[0]
        for cell in cells[1:]:
            text = exp.DPipe(this=exp.DPipe(this=text, expression=bar.copy()), expression=cell)
        return text

    def checksum_digest(self, text: exp.Expression) -> exp.Expression:
        """What :meth:`digest_numbers` reads: the MD5 hex digits of ``text`` (md5_text.sql)."""
        return templates.expression("md5_text", text=text)

    def digest_numbers(self, digest: exp.Expression) -> tuple[exp.Expression, exp.Expression]:
        """Two integers (summed as an order-free checksum) from a :meth:`checksum_digest`
        column: its hex digits 1-8 and 9-16, by portable arithmetic (hex_digits_number.sql)."""
        return (
            templates.expression("hex_digits_number", digest=digest, first=1),
            templates.expression("hex_digits_number", digest=digest.copy(), first=9),
        )

    def digest(self, text: exp.Expression) -> exp.Expression:
        """The MD5 digest of ``text`` in the form this engine sorts fastest: here its 32
        lowercase hex digits (warehouse_ml/sql/engines/md5_text.sql), whose text order every engine
        shares. :meth:`digest_sort_keys` gives the keys that sort digests in that order."""
        return templates.expression("md5_text", text=text)

    def digest_sort_keys(self, digest: exp.Expression) -> list[exp.Expression]:
        """Expressions over a :meth:`digest` whose lexicographic order is the order of the
        digests' hex text: here the digest itself."""
        return [digest]

    @abc.abstractmethod
    def engine_version(self) -> str:
        """The engine and its version (checksums of rows' text are only compared under the
        engine version that took them: another may render values as other text)."""

    def relation_kind(self, name: ObjectName) -> str | None:
        """'table' or 'view' when an object of that identity exists, else None."""
        located = self.resolve_existing(name.parts)
        return located.kind if located is not None and located.name.key == name.key else None

    def library_table(self, name: str) -> TableName:
        """A name in the library's schema ``wml``."""
        return TableName((LIBRARY_SCHEMA, name))

    def temporary_name(self, stem: str) -> TableName:
        """A fresh name for a temporary object, unlikely to meet a user's."""
        return TableName((f"wml_{stem}_{uuid.uuid4().hex[:12]}",))

    def temporary_table(self, stem: str) -> TableName:
        """A fresh name for a table that lives only as long as this session: a TEMPORARY table
        where the engine has them, else a table in ``wml`` (dropped by its owner, or by
        :func:`warehouse_ml.store.leftovers.vacuum` once its session has ended)."""
        return self.library_table(f"{stem}_{uuid.uuid4().hex[:12]}")
