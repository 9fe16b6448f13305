"""Warehouse adapters: the one render-and-run choke point between the library and an engine.

Every statement the library runs goes through :meth:`Warehouse.run` or :meth:`Warehouse.fetch`
(templates) or :meth:`Warehouse.run_tree` / :meth:`Warehouse.fetch_tree` (sqlglot trees built
by :mod:`warehouse_ml.templates` helpers). Each executed statement is appended to
``Warehouse.log`` and passed to the optional ``on_sql`` callback, so users can see exactly what
ran in their warehouse. Inside :meth:`Warehouse.operation`, each statement is also reported to a
progress callback before it runs (see :mod:`warehouse_ml.progress`).

Interrupts: Ctrl-C (SIGINT) while DuckDB runs a statement surfaces from DuckDB's Python client
as ``RuntimeError("Query interrupted")``; the adapter re-raises it as ``KeyboardInterrupt``, as
Python code expects. ``connection.interrupt()`` from another thread raises DuckDB's own
``duckdb.InterruptException``. Either way the statement has no effect, and the operation cleans
up as after any failed statement.
"""

from __future__ import annotations

import abc
import contextlib
import sys
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import duckdb
import pyarrow as pa
from sqlglot import exp

from warehouse_ml import dialects, templates
from warehouse_ml.errors import SourceError
from warehouse_ml.progress import ProgressCallback, Reporter, describe
from warehouse_ml.templates import TableName

SqlCallback = Callable[[str], None]


class Warehouse(abc.ABC):
    """An engine connection plus its SQL dialect. Subclasses implement the five primitives."""

    dialect: str = "duckdb"

    def __init__(self, on_sql: SqlCallback | None = None) -> None:
        self.log: list[str] = []
        self.on_sql = on_sql
        self._reporter: Reporter | None = None

    # -- primitives every engine implements ---------------------------------------------
    @abc.abstractmethod
    def _execute(self, sql: str) -> None:
        """Run one statement that returns no rows."""

    @abc.abstractmethod
    def _query(self, sql: str) -> pa.Table:
        """Run one query and return all its rows."""

    @abc.abstractmethod
    def register_arrow(self, data: pa.Table | pa.RecordBatchReader) -> TableName:
        """Make Arrow data queryable under a fresh temporary name and return that name."""

    @abc.abstractmethod
    def unregister(self, name: TableName) -> None:
        """Forget a name made by :meth:`register_arrow`."""

    @abc.abstractmethod
    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Run the enclosed statements atomically: all of them become visible, or none."""

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

    def _run(self, tree: exp.Expression, template: str | None) -> None:
        for statement in dialects.statements(tree, self.dialect):
            self._announce(statement, template)
            self._execute(self._record(templates.generate(statement, self.dialect)))

    def _fetch(self, tree: exp.Expression, template: str | None) -> pa.Table:
        self._announce(tree, template)
        return self._query(self._record(templates.generate(tree, self.dialect)))

    def run_tree(self, tree: exp.Expression) -> None:
        """Execute a statement built as a sqlglot tree (as several engine statements where the
        engine needs it, see :func:`warehouse_ml.dialects.statements`)."""
        self._run(tree, None)

    def fetch_tree(self, tree: exp.Expression) -> pa.Table:
        """Execute a query built as a sqlglot tree and return its rows as an Arrow table."""
        return self._fetch(tree, None)

    def run(self, template: str, /, **bindings: Any) -> None:
        """Render ``sql/<template>.sql`` for this engine and execute it."""
        self._run(templates.build(template, **bindings), template)

    def fetch(self, template: str, /, **bindings: Any) -> pa.Table:
        """Render ``sql/<template>.sql`` for this engine and return its rows as Arrow."""
        return self._fetch(templates.build(template, **bindings), template)

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
    def schema_of(self, relation: TableName | exp.Table) -> pa.Schema:
        """Column names and Arrow types of a table, view or table function, without reading rows."""
        return self.fetch("select_no_rows", source=relation).schema

    def exists(self, relation: TableName) -> bool:
        """Whether a table or view of that name can be queried."""
        try:
            self.schema_of(relation)
        except SourceError:
            return False
        return True

    def temporary_name(self, stem: str) -> TableName:
        """A fresh name for a temporary object, unlikely to meet a user's."""
        return TableName((f"wml_{stem}_{uuid.uuid4().hex[:12]}",))


class DuckDBWarehouse(Warehouse):
    """DuckDB, the embedded default: a user's connection, or one opened on a file or in memory."""

    dialect = "duckdb"

    def __init__(
        self,
        connection: duckdb.DuckDBPyConnection,
        on_sql: SqlCallback | None = None,
    ) -> None:
        super().__init__(on_sql)
        self.connection = connection

    def _execute(self, sql: str) -> None:
        with _duckdb_errors():
            self.connection.execute(sql)

    def _query(self, sql: str) -> pa.Table:
        with _duckdb_errors():
            return self.connection.sql(sql).to_arrow_table()

    def register_arrow(self, data: pa.Table | pa.RecordBatchReader) -> TableName:
        name = self.temporary_name("arrow")
        self.connection.register(name.name, data)
        return name

    def unregister(self, name: TableName) -> None:
        self.connection.unregister(name.name)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self.connection.begin()
        try:
            yield
        except BaseException:
            self.connection.rollback()
            raise
        self.connection.commit()


SIGINT_MESSAGE = "Query interrupted"
"""The text of the ``RuntimeError`` DuckDB's Python client raises when SIGINT (Ctrl-C) arrives
while a statement runs (it consumes the signal, so no KeyboardInterrupt follows)."""


@contextlib.contextmanager
def _duckdb_errors() -> Iterator[None]:
    """DuckDB errors as the library's: a missing object is a SourceError, Ctrl-C during a
    statement is KeyboardInterrupt again."""
    try:
        yield
    except duckdb.CatalogException as error:
        raise SourceError(str(error).splitlines()[0]) from error
    except RuntimeError as error:
        if type(error) is RuntimeError and str(error) == SIGINT_MESSAGE:
            raise KeyboardInterrupt(SIGINT_MESSAGE) from error
        raise


# Also accepted: a ``psycopg.Connection`` and a ``pyspark.sql.SparkSession`` (optional extras).
Connectable = Warehouse | duckdb.DuckDBPyConnection | str | Any | None


def connect(con: Connectable = None, *, on_sql: SqlCallback | None = None) -> Warehouse:
    """A :class:`Warehouse` for a connection, a DuckDB database path, or ``None`` (in memory).

    Connections: ``duckdb.DuckDBPyConnection``, ``psycopg.Connection`` (PostgreSQL, extra
    ``postgres``) or ``pyspark.sql.SparkSession`` (Spark, extra ``spark``).

    A Warehouse passed in is returned as it is (its own ``on_sql`` is kept unless one is given).
    """
    if isinstance(con, Warehouse):
        if on_sql is not None:
            con.on_sql = on_sql
        return con
    if con is None or isinstance(con, str):
        return DuckDBWarehouse(duckdb.connect(con or ":memory:"), on_sql)
    if isinstance(con, duckdb.DuckDBPyConnection):
        return DuckDBWarehouse(con, on_sql)
    # Optional engines, imported only when their driver is already loaded by the caller.
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(con, psycopg.Connection):
        from warehouse_ml.postgres_warehouse import PostgresWarehouse

        return PostgresWarehouse(con, on_sql)
    sessions = tuple(
        module.SparkSession
        for module in (
            sys.modules.get("pyspark.sql"),
            sys.modules.get("pyspark.sql.connect.session"),
        )
        if module is not None
    )  # a classic session, or a Spark Connect one
    if sessions and isinstance(con, sessions):
        from warehouse_ml.spark_warehouse import SparkWarehouse

        return SparkWarehouse(con, on_sql)
    raise SourceError(
        "expected a duckdb connection, a psycopg Connection, a pyspark SparkSession, a DuckDB "
        f"database path, a Warehouse or None; got {type(con).__name__}"
    )
