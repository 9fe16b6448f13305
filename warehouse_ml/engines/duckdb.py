"""DuckDB, the embedded default: the adapter over a user's connection, or one opened on a file or
in memory (see engines/base.py for what every adapter provides).

Interrupts: Ctrl-C (SIGINT) while DuckDB runs a statement surfaces from DuckDB's Python client
as ``RuntimeError("Query interrupted")``; the adapter re-raises it as ``KeyboardInterrupt``, as
Python code expects. ``connection.interrupt()`` from another thread raises DuckDB's own
``duckdb.InterruptException``. Either way the statement has no effect, and the operation cleans
up as after any failed statement.
"""

from __future__ import annotations

import contextlib
import uuid
import warnings
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

import duckdb
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import (
    LIBRARY_SCHEMA,
    Located,
    ObjectName,
    SqlCallback,
    Warehouse,
)
from warehouse_ml.errors import ConnectionStateError, SourceError
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName


class DuckDBWarehouse(Warehouse):
    """DuckDB, the embedded default: a user's connection, or one opened on a file or in memory."""

    dialect = "duckdb"

    def __init__(
        self,
        connection: duckdb.DuckDBPyConnection,
        on_sql: SqlCallback | None = None,
        *,
        cursor_of: DuckDBWarehouse | None = None,
    ) -> None:
        super().__init__(on_sql)
        self.connection = connection
        self._facts: dict[str, Any] | None = None
        self._cursor_of = cursor_of
        if cursor_of is not None:
            self.log = cursor_of.log

    @classmethod
    def open(cls, database: str, on_sql: SqlCallback | None = None) -> DuckDBWarehouse:
        """An adapter over a new connection to a database file (or ``":memory:"``), opened with
        :data:`FILE_CONFIG`; the caller closes ``adapter.connection``."""
        return cls(duckdb.connect(database, config=FILE_CONFIG), on_sql)

    def _execute(self, sql: str) -> None:
        with _duckdb_errors():
            self.connection.execute(sql)

    def _query(self, sql: str) -> pa.Table:
        """The rows of one query, run once through the DB-API: the relation API
        (``connection.sql``) parses and binds a query twice before running it, 35 ms more than
        this for a 36-attribute scoring query. Only on a connection known to hold no unfinished
        result of the user's (:meth:`_usable`), which ``execute`` would discard."""
        with _duckdb_errors(), warnings.catch_warnings():
            # DuckDB's notice that Arrow from a DB-API result is one more copy of the rows: a
            # copy of a result costs less than a second parse and bind.
            warnings.filterwarnings("ignore", "Arrow output on a DB-API result", UserWarning)
            result = self.connection.execute(sql)
            return getattr(result, RESULT_TO_ARROW)()

    def register_arrow(self, data: pa.Table | pa.RecordBatchReader) -> TableName:
        name = self.temporary_name("arrow")
        self.connection.register(name.name, data)
        return name

    def unregister(self, name: TableName) -> None:
        self.connection.unregister(name.name)

    def register_relation(self, relation: Any) -> TableName | None:
        """A relation of this database is registered as it is (read where its rows are, not
        copied); DuckDB refuses one of another database (InvalidInputException): None."""
        name = self.temporary_name("relation")
        try:
            self.connection.register(name.name, relation)
        except duckdb.InvalidInputException:
            return None
        return name

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        self.connection.begin()
        try:
            yield
        except BaseException:
            self.connection.rollback()
            raise
        self.connection.commit()

    @property
    def native(self) -> Any:
        """The DuckDB connection (or cursor) statements run on."""
        return self.connection

    def write_conflict(self, error: Exception) -> bool:
        """DuckDB's concurrency is optimistic: a transaction that writes a row or a catalog
        entry (table, view) another transaction wrote and has not committed, or committed after
        this one began, fails at once with a ``TransactionException`` naming the conflict
        ("Conflict on tuple deletion!", "Catalog write-write conflict on ...") and is rolled
        back. That class also covers misuse of transactions (BEGIN inside one), hence the
        check of the message."""
        return isinstance(error, duckdb.TransactionException) and "conflict" in str(error).lower()

    # -- identity -------------------------------------------------------------------------
    def fold(self, part: str) -> str:
        """DuckDB compares identifiers ignoring ASCII case only ('A' = 'a', 'É' <> 'é')."""
        return part.translate(_ASCII_LOWER)

    def _session_facts(self) -> dict[str, Any]:
        """The facts of warehouse_ml/sql/engines/engine_duckdb_session.sql, read through the
        relation API, which refuses (``duckdb.ResourceInUseException``) a connection holding an
        unfinished result of the user's where ``execute`` would discard it (:meth:`_usable`)."""
        if self._facts is None:
            text = self._reported("engine_duckdb_session", {})
            self._facts = self._query_if_idle(text).to_pylist()[0]
        return self._facts

    def _query_if_idle(self, sql: str) -> pa.Table:
        """The rows of one query through the relation API, which raises
        ``duckdb.ResourceInUseException`` on a connection holding an unfinished result."""
        with _duckdb_errors():
            return self.connection.sql(sql).to_arrow_table()

    def _forget_facts(self) -> None:
        self._facts = None

    def _text_context(self) -> Hashable:
        """The current database's name when an attached database is named ``wml`` (the
        library's own objects are then named with it: :meth:`_prepare`), else None."""
        facts = self._facts or {}
        return facts["database_name"] if facts.get("wml_catalog") else None

    def _key(self, catalog: str | None, schema: str, name: str) -> tuple[str, str, str]:
        current = self.fold(self._session_facts()["database_name"])
        folded = "" if catalog is None or self.fold(catalog) == current else self.fold(catalog)
        return (folded, self.fold(schema), self.fold(name))

    def _object(self, catalog: str | None, schema: str, name: str) -> ObjectName:
        current = self.fold(self._session_facts()["database_name"])
        if catalog is not None and self.fold(catalog) == current:
            catalog = None
        parts = (schema, name) if catalog is None else (catalog, schema, name)
        return ObjectName(TableName(parts), self._key(catalog, schema, name))

    def _split(self, name: TableName) -> tuple[str | None, str | None, str]:
        """(catalog, schema, name) of a name as written; a two-part name's first part is a
        schema of the current database if there is one of that name, else a database."""
        parts = name.parts
        if len(parts) == 3:
            return parts[0], parts[1], parts[2]
        if len(parts) == 1:
            return None, None, parts[0]
        facts = self._session_facts()
        schemas = self.fetch("engine_duckdb_schemas").to_pylist()
        current = self.fold(facts["database_name"])
        first = self.fold(parts[0])
        if any(
            self.fold(s["database_name"]) == current and self.fold(s["schema_name"]) == first
            for s in schemas
        ):
            return None, parts[0], parts[1]
        if any(self.fold(s["database_name"]) == first for s in schemas):
            return parts[0], "main", parts[1]
        return None, parts[0], parts[1]

    def resolve_target(self, name: TableName) -> ObjectName:
        catalog, schema, table = self._split(name)
        return self._object(catalog, schema or self._session_facts()["schema_name"], table)

    def relation_kind(self, name: ObjectName) -> str | None:
        """Looked up by identity (no search path: the name is already resolved)."""
        catalog, schema, table = name.key
        database = catalog or self.fold(self._session_facts()["database_name"])
        for row in self.fetch("engine_duckdb_relations", name=name.parts.name).to_pylist():
            if (
                self.fold(row["database_name"]) == database
                and self.fold(row["schema_name"]) == schema
                and self.fold(row["object_name"]) == table
            ):
                return str(row["object_kind"])
        return None

    def resolve_existing(self, name: TableName) -> Located | None:
        return next(iter(self.visible(name)), None)

    def visible(self, name: TableName) -> list[Located]:
        catalog, schema, table = self._split(name)
        facts = self._session_facts()
        found = [
            r
            for r in self.fetch("engine_duckdb_relations", name=table).to_pylist()
            if self.fold(r["object_name"]) == self.fold(table)
        ]
        current = facts["database_name"]
        if schema is not None:
            order = [(catalog or current, schema)]
        else:  # DuckDB's search path: temporary objects, the search path, the current schema
            path = [p.strip() for p in (facts["search_path"] or "").split(",") if p.strip()]
            order = [
                ("temp", "main"),
                *((p.split(".", 1) if "." in p else (current, p)) for p in path),
                (current, facts["schema_name"]),
                (current, "main"),
            ]
        reached: list[dict[str, Any]] = []
        for database, schema_name in order:
            reached += [
                row
                for row in found
                if row not in reached
                and self.fold(row["database_name"]) == self.fold(database)
                and self.fold(row["schema_name"]) == self.fold(schema_name)
            ]
        return [self._located(row) for row in reached]

    def _located(self, row: dict[str, Any]) -> Located:
        """A row of warehouse_ml/sql/engines/engine_duckdb_relations.sql as a :class:`Located`."""
        located = self._object(row["database_name"], row["schema_name"], row["object_name"])
        if row["is_temporary"]:
            located = ObjectName(TableName(("temp", "main", row["object_name"])), located.key)
        return Located(located, row["object_kind"], bool(row["is_temporary"]))

    def schema_objects(self, schema: str) -> list[tuple[str, str]]:
        rows = self.fetch("engine_duckdb_schema_objects", schema=schema).to_pylist()
        return [(r["object_name"], r["object_kind"]) for r in rows]

    def row_text(self, table: TableName) -> exp.Expression:
        """DuckDB casts a whole row to text itself (``CAST(t AS VARCHAR)``)."""
        return templates.expression("row_text")

    def engine_version(self) -> str:
        return f"duckdb {duckdb.__version__}"

    def checksum_digest(self, text: exp.Expression) -> exp.Expression:
        """The row's text itself: DuckDB's :meth:`digest_numbers` hash it."""
        return text

    def digest_numbers(self, digest: exp.Expression) -> tuple[exp.Expression, exp.Expression]:
        """DuckDB reads the MD5 digest of the text as two 64-bit numbers itself
        (md5_number_upper/lower), which plans and runs several times faster than the portable
        digit arithmetic."""
        return (
            templates.expression("engine_duckdb_md5_upper", text=digest),
            templates.expression("engine_duckdb_md5_lower", text=digest.copy()),
        )

    # -- the user's connection ------------------------------------------------------------
    def digest(self, text: exp.Expression) -> exp.Expression:
        """The MD5 digest as one 128-bit integer
        (warehouse_ml/sql/engines/engine_duckdb_md5_number.sql): sorting two 64-bit integers costs
        far less than sorting hex text."""
        return templates.expression("engine_duckdb_md5_number", text=text)

    def digest_sort_keys(self, digest: exp.Expression) -> list[exp.Expression]:
        """The digest's bytes 0-7 and 8-15, each read big-endian: sorted in that order, rows
        come in the order of the digests' hex text, as on every engine."""
        return [
            templates.expression(
                "engine_duckdb_digest_sort_key",
                bytes=templates.expression(
                    "engine_duckdb_digest_bytes", digest=digest.copy(), shift=shift
                ),
            )
            for shift in (0, 64)
        ]

    def _usable(self) -> Warehouse:
        if self._cursor_of is not None:
            return self
        try:
            first = self._session_facts()["transaction_id"]
        except duckdb.ResourceInUseException:
            self._facts = None
            return DuckDBWarehouse(self.connection.cursor(), self.on_sql, cursor_of=self)
        # the connection holds no unfinished result: the DB-API reads the second id
        then = self.fetch("engine_duckdb_transaction_id").column("transaction_id")[0].as_py()
        if then == first:
            raise ConnectionStateError(
                "the DuckDB connection has an open transaction (BEGIN without COMMIT or "
                "ROLLBACK); warehouse-ml runs its own transactions and does not write inside "
                "yours: commit or roll back first (con.commit() / con.rollback())"
            )
        return self

    @property
    def sees_user_objects(self) -> bool:
        return self._cursor_of is None

    def read_only(self) -> str | None:
        if self._session_facts()["read_only"]:
            return (
                f"the DuckDB database {self._session_facts()['database_name']!r} is open "
                "read-only (duckdb.connect(..., read_only=True))"
            )
        return None

    def views_read_library(self) -> str | None:
        """DuckDB stores a view's references to its own database without the database's
        name, so with an attached database named ``wml`` a view reading ``wml.x`` is
        ambiguous whatever the library writes."""
        if self._session_facts()["wml_catalog"]:
            return (
                "a database named 'wml' is attached, and DuckDB stores a view's references to "
                'schema wml of its own database as "wml.<table>", which that name makes '
                "ambiguous; detach it or attach it under another name (ATTACH ... AS other) "
                "to create prediction views (every other call works as it is)"
            )
        return None

    def require_scan_order(self, keys: Sequence[str]) -> None:
        """Refuse (ConnectionStateError) a result whose rows only their order tells apart (no
        ``keys`` columns returned with each) on a database whose scans keep no order (``SET
        preserve_insertion_order = false``): its rows would come back paired with other rows'
        results."""
        if not keys and not self._session_facts()["preserve_insertion_order"]:
            raise ConnectionStateError(
                "this call returns one row per source row in the source's order, and the "
                "DuckDB database has preserve_insertion_order = false, so its scans keep no "
                "order; pass keys=[...] to get each row's key with its result, score into a "
                "view or table (create_view, create_table), or SET "
                "preserve_insertion_order = true"
            )

    def session_token(self) -> str:
        return "duckdb"

    def live_sessions(self, tokens: set[str]) -> set[str]:
        """A DuckDB file is locked by the one process writing to it, so while this process
        writes, no other process's session is running."""
        return set()

    TEMPORARY_SCHEMA = ("temp", "main")
    TOP_K_AGGREGATE = True

    def _prepare(self, tree: exp.Expression) -> exp.Expression:
        """With an attached database named ``wml``, "wml.x" is ambiguous in DuckDB: the
        library's own objects are then named with the current database too."""
        tree = super()._prepare(tree)
        if not (self._facts or {}).get("wml_catalog"):
            return tree
        database = exp.to_identifier(self._session_facts()["database_name"], quoted=True)
        tree = tree.copy()
        if isinstance(tree, exp.Create) and tree.kind == "SCHEMA" and not tree.this.args.get("db"):
            tree.this.set("db", database)  # CREATE SCHEMA <database>.wml
        for table in tree.find_all(exp.Table):
            if table.args.get("catalog") is None and table.db == LIBRARY_SCHEMA:
                table.set("catalog", database.copy())
        return tree

    def after_drop(self) -> None:
        with contextlib.suppress(duckdb.Error):
            self.run("engine_duckdb_checkpoint")

    def temporary_table(self, stem: str) -> TableName:
        return TableName((*self.TEMPORARY_SCHEMA, f"wml_{stem}_{uuid.uuid4().hex[:12]}"))


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")

RESULT_TO_ARROW = "fetch_arrow_table"
if hasattr(duckdb.DuckDBPyConnection, "to_arrow_table"):
    RESULT_TO_ARROW = "to_arrow_table"
"""The DB-API result's method returning its rows as Arrow: ``to_arrow_table`` since DuckDB 2.0,
``fetch_arrow_table`` before."""

FILE_CONFIG = {"storage_compatibility_version": "v1.5.0"}
"""Settings of the connections the library opens itself (:meth:`DuckDBWarehouse.open`, the CLI):
a database file they create is written in the storage format of DuckDB 1.5, which DuckDB 1.5
clients (e.g. the ``duckdb`` command line program of the ``duckdb-cli`` package on PyPI) and 2.x
both open; a file in DuckDB 2.0's own format does not open in 1.5. Existing files keep their
format."""

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
