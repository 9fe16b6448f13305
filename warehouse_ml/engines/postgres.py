"""PostgreSQL adapter (psycopg 3): the same models, trained and scored inside a PostgreSQL server.

Install with ``pip install "warehouse-ml[postgres]"``. The user provides an open
``psycopg.Connection`` and the right to create schema ``wml`` (or an existing ``wml`` schema
they may create tables and views in).

* Statements run one at a time. Each runs inside ``connection.transaction()``: committed on its
  own when no transaction is open, as a savepoint inside a transaction the caller (or
  :meth:`PostgresWarehouse.transaction`) has opened, so a failed probe (e.g. "does the catalog
  exist?") never leaves the connection in an aborted state.
* Arrow data in: a ``TEMP`` table (session-scoped, dropped by :meth:`unregister`), filled by
  ``COPY ... FROM STDIN (FORMAT csv)`` from Arrow's own CSV writer. NULL is an unquoted empty
  field and strings are always quoted, so NULL and ``''`` stay distinct; doubles are written in
  shortest round-trip form, so every bit is kept. Types: text, bigint, double precision,
  boolean, date, timestamp, timestamptz, and ``numeric(p, s)`` for decimals and for uint64
  (``numeric(20, 0)``: its values pass bigint).
* Arrow data out: rows fetched by the cursor, built into a ``pyarrow.Table`` with column types
  from the cursor description: a ``numeric(p, s)`` column (declared precision and scale, e.g.
  a table's column) is ``decimal128(p, s)``, so a table's schema tells integer-valued decimals
  from fractional ones (features.py); a ``numeric`` result without them (e.g.
  ``SUM(bigint)``) is int64 when every value is an integer within int64, decimal128(38, 0)
  when they are integers beyond it (HUGEINT class labels), float64 otherwise.
"""

from __future__ import annotations

import contextlib
import decimal
import functools
import io
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv
from sqlglot import exp

from warehouse_ml.engines.base import Located, ObjectName, SqlCallback, Warehouse
from warehouse_ml.errors import ConnectionStateError, SourceError
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName

try:  # optional dependency: pip install "warehouse-ml[postgres]"
    import psycopg
    from psycopg import errors as pg_errors
    from psycopg import sql as pg_sql
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        'PostgreSQL support needs psycopg 3: pip install "warehouse-ml[postgres]"'
    ) from error

# PostgreSQL type OIDs (pg_type.oid) -> Arrow types, for results.
_OID_TYPES: dict[int, pa.DataType] = {
    16: pa.bool_(),  # boolean
    20: pa.int64(),  # bigint
    21: pa.int16(),  # smallint
    23: pa.int32(),  # integer
    25: pa.string(),  # text
    1042: pa.string(),  # char(n)
    1043: pa.string(),  # varchar
    19: pa.string(),  # name
    700: pa.float32(),  # real
    701: pa.float64(),  # double precision
    1082: pa.date32(),  # date
    1114: pa.timestamp("us"),  # timestamp
    1184: pa.timestamp("us", tz="UTC"),  # timestamptz
    705: pa.string(),  # unknown (an untyped literal)
}
_NUMERIC_OID = 1700

# Errors that mean "this relation or schema is not there": the library's SourceError.
_MISSING = (pg_errors.UndefinedTable, pg_errors.InvalidSchemaName, pg_errors.UndefinedObject)


@functools.cache
def _no_jit() -> bytes:
    """warehouse_ml/sql/engines/engine_postgres_no_jit.sql's text, run before each of the library's
    statements in its transaction."""
    return templates.render("engine_postgres_no_jit", "postgres").encode("utf-8")


def _pg_type(field: pa.Field) -> pg_sql.SQL:
    """The PostgreSQL column type that holds an Arrow field's values exactly."""
    t = field.type
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pg_sql.SQL("text")
    if pa.types.is_dictionary(t) and pa.types.is_string(t.value_type):
        return pg_sql.SQL("text")
    if pa.types.is_uint64(t):
        return pg_sql.SQL("numeric(20, 0)")
    if pa.types.is_integer(t):
        return pg_sql.SQL("bigint")
    if pa.types.is_floating(t):
        return pg_sql.SQL("double precision")
    if pa.types.is_boolean(t):
        return pg_sql.SQL("boolean")
    if pa.types.is_date(t):
        return pg_sql.SQL("date")
    if pa.types.is_timestamp(t):
        return pg_sql.SQL("timestamptz" if t.tz else "timestamp")
    if pa.types.is_decimal(t):
        return pg_sql.SQL("numeric({}, {})").format(
            pg_sql.Literal(t.precision), pg_sql.Literal(t.scale)
        )
    if pa.types.is_null(t):
        return pg_sql.SQL("text")
    raise SourceError(
        f"column {field.name!r} has Arrow type {t}; PostgreSQL loading supports strings, "
        "integers, floats, booleans, dates, timestamps and decimals"
    )


_LARGEST_DECIMAL128 = 10**38


def _numeric_array(values: list[Any], precision: int | None, scale: int | None) -> pa.Array:
    """A ``numeric`` result column: decimal128(p, s) when the column declares them (or
    decimal256 above 38 digits); otherwise int64 when every value is an integer within
    int64, decimal128(38, 0) when they are integers beyond it, else float64."""
    if precision is not None and scale is not None:
        kind = pa.decimal128 if precision <= 38 else pa.decimal256
        return pa.array(values, kind(precision, scale))
    present = [v for v in values if v is not None]
    if all(isinstance(v, decimal.Decimal) and v == v.to_integral_value() for v in present):
        if all(abs(v) < 2**63 for v in present):
            return pa.array([None if v is None else int(v) for v in values], pa.int64())
        if all(abs(v) < _LARGEST_DECIMAL128 for v in present):
            return pa.array(values, pa.decimal128(38, 0))
    return pa.array([None if v is None else float(v) for v in values], pa.float64())


class PostgresWarehouse(Warehouse):
    """PostgreSQL 15+ through a user's ``psycopg.Connection`` (dialect ``postgres``).

    Names are compared exactly (the library always quotes them) after PostgreSQL's truncation
    to 63 bytes (NAMEDATALEN - 1, cut at a character boundary)."""

    dialect = "postgres"
    MATERIALIZED_STEPS = True
    LATERAL_TOP_K = True
    IDENTIFIER_BYTES = 63
    TEMPORARY_SCHEMA = ("pg_temp",)

    def __init__(self, connection: psycopg.Connection, on_sql: SqlCallback | None = None) -> None:
        super().__init__(on_sql)
        self.connection = connection
        self._facts: dict[str, Any] | None = None

    @property
    def native(self) -> Any:
        """The psycopg connection."""
        return self.connection

    # -- identity -------------------------------------------------------------------------
    def fold(self, part: str) -> str:
        encoded = part.encode("utf-8")
        if len(encoded) <= self.IDENTIFIER_BYTES:
            return part
        return encoded[: self.IDENTIFIER_BYTES].decode("utf-8", errors="ignore")

    def _session_facts(self) -> dict[str, Any]:
        if self._facts is None:
            self._facts = self.fetch("engine_postgres_session").to_pylist()[0]
        return self._facts

    def _forget_facts(self) -> None:
        self._facts = None

    def _object(self, schema: str, name: str) -> ObjectName:
        return ObjectName(TableName((schema, name)), ("", self.fold(schema), self.fold(name)))

    def resolve_target(self, name: TableName) -> ObjectName:
        parts = name.parts[-2:]
        schema = parts[0] if len(parts) == 2 else self._session_facts()["schema_name"]
        return self._object(schema, parts[-1])

    @staticmethod
    def _regclass_text(name: TableName) -> str:
        """The quoted, possibly schema-qualified name as the text ``to_regclass`` reads."""
        return exp.Table(
            this=exp.to_identifier(name.parts[-1], quoted=True),
            db=exp.to_identifier(name.parts[-2], quoted=True) if len(name.parts) > 1 else None,
        ).sql(dialect="postgres")

    def resolve_existing(self, name: TableName) -> Located | None:
        text = self._regclass_text(name)
        rows = self.fetch("engine_postgres_relation", name=text).to_pylist()
        if not rows:
            return None
        row = rows[0]
        located = self._object(row["schema_name"], row["object_name"])
        return Located(located, row["object_kind"], bool(row["is_temporary"]))

    def visible(self, name: TableName) -> list[Located]:
        if len(name.parts) > 1:
            return super().visible(name)
        rows = self.fetch("engine_postgres_path_relations", name=self.fold(name.name))
        return [
            Located(
                self._object(r["schema_name"], r["object_name"]),
                r["object_kind"],
                bool(r["is_temporary"]),
            )
            for r in rows.to_pylist()
        ]

    def dependent_objects(self, name: TableName) -> list[TableName]:
        rows = self.fetch("engine_postgres_dependents", name=self._regclass_text(name))
        return [TableName((r["schema_name"], r["object_name"])) for r in rows.to_pylist()]

    def schema_objects(self, schema: str) -> list[tuple[str, str]]:
        rows = self.fetch("engine_postgres_schema_objects", schema=schema).to_pylist()
        return [(r["object_name"], r["object_kind"]) for r in rows]

    # -- the user's connection ------------------------------------------------------------
    def _usable(self) -> Warehouse:
        status = self.connection.info.transaction_status
        if status != psycopg.pq.TransactionStatus.IDLE:
            raise ConnectionStateError(
                f"the PostgreSQL connection is not idle (transaction status {status.name}): "
                "warehouse-ml runs its own transactions and does not write inside yours; "
                "commit or roll back first (con.commit() / con.rollback()), or connect with "
                "autocommit=True"
            )
        return self

    def session_token(self) -> str:
        return f"postgres:{self._session_facts()['backend']}"

    def live_sessions(self, tokens: set[str]) -> set[str]:
        alive = {
            f"postgres:{r['backend']}"
            for r in self.fetch("engine_postgres_live_backends").to_pylist()
        }
        return tokens & alive

    def row_text(self, table: TableName) -> exp.Expression:
        """PostgreSQL casts a whole row to text itself (``CAST(t AS TEXT)``)."""
        return templates.expression("row_text")

    def engine_version(self) -> str:
        return f"postgres {self.connection.info.server_version}"

    @contextlib.contextmanager
    def exact_float_text(self) -> Iterator[None]:
        """PostgreSQL renders double precision as text by the session's extra_float_digits:
        set for the transaction only (SET LOCAL), so the user's setting comes back."""
        with self.transaction():
            self.run("engine_postgres_float_text")
            yield

    def temporary_table(self, stem: str) -> TableName:
        return TableName((*self.TEMPORARY_SCHEMA, self.temporary_name(stem).name))

    def _execute(self, sql: str) -> None:
        try:
            with self.connection.transaction():
                self.connection.execute(_no_jit())
                self.connection.execute(sql.encode("utf-8"))  # bytes: never %-interpolated
        except _MISSING as error:
            raise SourceError(str(error).splitlines()[0]) from error

    def _query(self, sql: str) -> pa.Table:
        try:
            with self.connection.transaction(), self.connection.cursor() as cursor:
                cursor.execute(_no_jit())
                cursor.execute(sql.encode("utf-8"))
                description = cursor.description or []
                rows = cursor.fetchall()
        except _MISSING as error:
            raise SourceError(str(error).splitlines()[0]) from error
        columns = list(zip(*rows, strict=True)) if rows else [() for _ in description]
        arrays, names = [], []
        for column, values in zip(description, columns, strict=True):
            names.append(column.name)
            if column.type_code == _NUMERIC_OID:
                arrays.append(_numeric_array(list(values), column.precision, column.scale))
                continue
            arrow_type = _OID_TYPES.get(column.type_code, pa.string())
            if column.type_code not in _OID_TYPES:
                values = [None if v is None else str(v) for v in values]
            arrays.append(pa.array(list(values), arrow_type))
        return pa.Table.from_arrays(arrays, names=names)

    def register_arrow(self, data: pa.Table | pa.RecordBatchReader) -> TableName:
        """Copy Arrow data into a fresh ``TEMP`` table (dropped at session end or by
        :meth:`unregister`)."""
        table = data.read_all() if isinstance(data, pa.RecordBatchReader) else data
        table = table.combine_chunks()
        columns = []
        for i, field in enumerate(table.schema):
            if pa.types.is_dictionary(field.type) or pa.types.is_null(field.type):
                table = table.set_column(i, field.name, table.column(i).cast(pa.string()))
            columns.append(
                pg_sql.SQL("{} {}").format(pg_sql.Identifier(field.name), _pg_type(field))
            )
        name = self.temporary_name("arrow")
        identifier = pg_sql.Identifier(name.name)
        create = pg_sql.SQL("CREATE TEMP TABLE {} ({})").format(
            identifier, pg_sql.SQL(", ").join(columns)
        )
        copy = pg_sql.SQL("COPY {} FROM STDIN (FORMAT csv, HEADER false)").format(identifier)
        buffer = io.BytesIO()
        if table.num_rows:
            pacsv.write_csv(
                table, buffer, pacsv.WriteOptions(include_header=False, quoting_style="needed")
            )
        with self.connection.transaction(), self.connection.cursor() as cursor:
            cursor.execute(self._record(create.as_string(self.connection)).encode("utf-8"))
            with cursor.copy(copy) as pipe:
                view = buffer.getbuffer()
                for start in range(0, len(view), 1 << 20):
                    pipe.write(view[start : start + (1 << 20)])
            cursor.execute(pg_sql.SQL("ANALYZE {}").format(identifier))
        return name

    def unregister(self, name: TableName) -> None:
        statement = pg_sql.SQL("DROP TABLE IF EXISTS {}").format(pg_sql.Identifier(*name.parts))
        with self.connection.transaction():
            self.connection.execute(statement)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """``connection.transaction()``: commit at the end, roll back on an exception (a
        savepoint when the caller already has a transaction open)."""
        with self.connection.transaction():
            yield

    def write_conflict(self, error: Exception) -> bool:
        """PostgreSQL makes a second writer of a row wait for the first, but breaks a deadlock
        between two transactions (each waiting for a row or object the other wrote) by
        rolling one back with ``DeadlockDetected`` (SQLSTATE 40P01), and a serializable
        transaction may fail with ``SerializationFailure`` (40001): either was rolled back
        for another connection's writes."""
        return isinstance(error, (pg_errors.DeadlockDetected, pg_errors.SerializationFailure))
