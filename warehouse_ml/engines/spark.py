"""Spark SQL adapter: the same models, trained and scored by a user's ``SparkSession``.

Install with ``pip install "warehouse-ml[spark]"`` (PySpark 4). The user provides the session
(``local[*]``, a cluster, or Spark Connect) whose current catalog can create schema ``wml`` and
tables in it (the default ``spark_catalog`` writes Parquet tables under
``spark.sql.warehouse.dir``).

* Arrow data in: ``spark.createDataFrame(arrow_table)`` registered with
  ``createOrReplaceTempView`` under a fresh name (session-scoped; :meth:`unregister` drops it).
  A timestamp without a time zone becomes ``TIMESTAMP_NTZ`` (Spark's ``TIMESTAMP`` would read
  it in ``spark.sql.session.timeZone`` and show it in the session's zone).
* Arrow data out: ``DataFrame.toArrow()`` (Spark 4).
* Transactions: Spark SQL has none across statements. :meth:`SparkWarehouse.transaction` is a
  documented best-effort no-op: the statements run one after the other. The catalog stays safe
  because a fit writes every parameter table first, under a fresh model id, and only then swaps
  the catalog row (see :mod:`warehouse_ml.sqlgen.dialects` for how the swap is written on
  Spark). While the swap runs (a few statements, well under a second on small catalogs), a
  concurrent reader may see no row for the model being replaced; it never sees a half-written
  model.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Located, ObjectName, SqlCallback, Warehouse
from warehouse_ml.errors import SourceError
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName

try:  # optional dependency: pip install "warehouse-ml[spark]"
    from pyspark.errors import AnalysisException
    from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError('Spark support needs PySpark 4: pip install "warehouse-ml[spark]"') from error

# Spark error classes that mean "this relation or schema is not there": SourceError.
_MISSING = ("TABLE_OR_VIEW_NOT_FOUND", "SCHEMA_NOT_FOUND", "PATH_NOT_FOUND")


def _is_missing(error: Exception) -> bool:
    condition = getattr(error, "getCondition", None) or getattr(error, "getErrorClass", None)
    name = condition() if callable(condition) else None
    return bool(name) and any(name.startswith(m) for m in _MISSING)


@contextlib.contextmanager
def _missing_is_a_source_error() -> Iterator[None]:
    """A statement naming a table or view that does not exist raises :class:`SourceError`
    (its first line), as on the other engines."""
    try:
        yield
    except AnalysisException as error:
        if _is_missing(error):
            raise SourceError(str(error).splitlines()[0]) from error
        raise


def _arrow_for_spark(table: pa.Table) -> pa.Table:
    """Types Spark reads from Arrow: dictionary and view strings become plain strings, uint64
    becomes decimal(20, 0) (its values pass int64), other unsigned integers int64, an all-NULL
    column strings."""
    for i, field in enumerate(table.schema):
        t = field.type
        if (
            pa.types.is_dictionary(t)
            or pa.types.is_large_string(t)
            or pa.types.is_string_view(t)
            or pa.types.is_null(t)
        ):
            table = table.set_column(i, field.name, table.column(i).cast(pa.string()))
        elif pa.types.is_uint64(t):
            table = table.set_column(i, field.name, table.column(i).cast(pa.decimal128(20, 0)))
        elif pa.types.is_unsigned_integer(t):
            table = table.set_column(i, field.name, table.column(i).cast(pa.int64()))
    return table


class SparkWarehouse(Warehouse):
    """Spark 4 through a user's ``SparkSession`` (dialect ``spark``)."""

    dialect = "spark"
    TEMPORARY_TABLES = False
    KNOWS_SESSIONS = False

    def __init__(self, session: Any, on_sql: SqlCallback | None = None) -> None:
        super().__init__(on_sql)
        self.spark = session

    @property
    def native(self) -> Any:
        """The SparkSession."""
        return self.spark

    # -- identity -------------------------------------------------------------------------
    def fold(self, part: str) -> str:
        """Spark's session catalog resolves names ignoring case and stores them in lower case."""
        return part.lower()

    def _object(self, catalog: str | None, schema: str, name: str) -> ObjectName:
        current = self.fold(self.spark.catalog.currentCatalog())
        if catalog is not None and self.fold(catalog) == current:
            catalog = None
        parts = (schema, name) if catalog is None else (catalog, schema, name)
        key = ("" if catalog is None else self.fold(catalog), self.fold(schema), self.fold(name))
        return ObjectName(TableName(parts), key)

    def resolve_target(self, name: TableName) -> ObjectName:
        parts = name.parts
        catalog = parts[0] if len(parts) == 3 else None
        schema = parts[-2] if len(parts) >= 2 else self.spark.catalog.currentDatabase()
        return self._object(catalog, schema, parts[-1])

    def resolve_existing(self, name: TableName) -> Located | None:
        quoted = ".".join("`" + p.replace("`", "``") + "`" for p in name.parts)
        if not self.spark.catalog.tableExists(quoted):
            return None
        table = self.spark.catalog.getTable(quoted)
        kind = "view" if table.tableType in ("VIEW", "TEMPORARY") else "table"
        if table.isTemporary:
            located = ObjectName(TableName((table.name,)), ("", "", self.fold(table.name)))
            return Located(located, kind, True)
        namespace = list(table.namespace or [self.spark.catalog.currentDatabase()])
        located = self._object(table.catalog, namespace[-1], table.name)
        return Located(located, kind, False)

    def schema_objects(self, schema: str) -> list[tuple[str, str]]:
        quoted = "`" + schema.replace("`", "``") + "`"
        if not self.spark.catalog.databaseExists(quoted):
            return []
        return [
            (t.name, "view" if t.tableType == "VIEW" else "table")
            for t in self.spark.catalog.listTables(quoted)
            if not t.isTemporary
        ]

    def engine_version(self) -> str:
        return f"spark {self.spark.version}"

    def session_token(self) -> str:
        return f"spark:{self.spark.sparkContext.applicationId}"

    def live_sessions(self, tokens: set[str]) -> set[str]:
        """Other Spark applications may share the catalog and nothing tells whether they still
        run: every session counts as alive (vacuum then removes another session's objects only
        once they are old enough, see leftovers.vacuum)."""
        return set(tokens)

    def statements(self, tree: exp.Expression) -> list[exp.Expression]:
        """``DELETE FROM t WHERE cond`` is not supported by Spark's default (v1, Parquet)
        tables, and ``INSERT OVERWRITE t SELECT ... FROM t`` may not read the table it
        overwrites. A delete becomes: ``CREATE TABLE stage AS SELECT * FROM t WHERE NOT
        COALESCE(cond, FALSE)``; ``INSERT OVERWRITE TABLE t SELECT * FROM stage``; ``DROP TABLE
        stage`` (``stage`` a fresh name in ``t``'s schema). Only the small catalog tables
        (``wml.models``, ``wml.objects``) are ever deleted from."""
        if isinstance(tree, exp.Delete):
            return _staged_delete(tree)
        return [tree]

    def _execute(self, sql: str) -> None:
        with _missing_is_a_source_error():
            self.spark.sql(sql).collect()

    def _query(self, sql: str) -> pa.Table:
        with _missing_is_a_source_error():
            return self.spark.sql(sql).toArrow()

    def _schema(self, sql: str) -> pa.Schema:
        """The schema ``toArrow`` gives, from the analysed query alone: ``spark.sql`` resolves
        names and types without a job, where running even ``LIMIT 0`` plans and schedules one
        (70 of the engines suite's update case's 324 statements read a schema so)."""
        with _missing_is_a_source_error():
            schema = self.spark.sql(sql).schema
        large = self.spark.conf.get("spark.sql.execution.arrow.useLargeVarTypes", "false")
        return to_arrow_schema(
            schema,
            error_on_duplicated_field_names_in_struct=True,
            timezone="UTC",
            prefers_large_types=large == "true",
        )

    def digest_numbers(self, digest: exp.Expression) -> tuple[exp.Expression, exp.Expression]:
        """The portable numbers (hex digits 1-8 and 9-16) by Spark's ``CONV``
        (warehouse_ml/sql/engines/engine_spark_hex_number.sql): a Naive Bayes model's checksum
        statement went from 20.9 kB to 6.8-10.2 kB, and its planning with it."""
        return (
            templates.expression("engine_spark_hex_number", digest=digest, first=1),
            templates.expression("engine_spark_hex_number", digest=digest.copy(), first=9),
        )

    def register_arrow(self, data: pa.Table | pa.RecordBatchReader) -> TableName:
        """A temporary view over the Arrow data: ``createDataFrame`` then
        ``createOrReplaceTempView``."""
        table = data.read_all() if isinstance(data, pa.RecordBatchReader) else data
        table = _arrow_for_spark(table)
        name = self.temporary_name("arrow")
        naive = any(pa.types.is_timestamp(t) and t.tz is None for t in table.schema.types)
        schema = from_arrow_schema(table.schema, prefer_timestamp_ntz=True) if naive else None
        frame = self.spark.createDataFrame(table, schema=schema)
        frame.createOrReplaceTempView(name.name)
        return name

    def unregister(self, name: TableName) -> None:
        self.spark.catalog.dropTempView(name.name)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Best effort, no isolation: Spark SQL has no multi-statement transactions, so the
        enclosed statements simply run in order (see the module docstring for why the catalog
        stays consistent)."""
        yield


def _staged_delete(tree: exp.Delete) -> list[exp.Expression]:
    table = tree.this
    if not isinstance(table, exp.Table):
        return [tree]
    stage = exp.Table(
        this=exp.to_identifier(f"wml_stage_{uuid.uuid4().hex[:12]}", quoted=True),
        db=table.args.get("db"),
        catalog=table.args.get("catalog"),
    )
    where = tree.args.get("where")
    keep = exp.select(exp.Star()).from_(table.copy())
    if where is not None:
        condition = exp.Coalesce(this=where.this.copy(), expressions=[exp.false()])
        keep = keep.where(exp.Not(this=exp.Paren(this=condition)))
    else:
        keep = keep.where(exp.false())
    return [
        exp.Drop(tables=[stage.copy()], kind="TABLE", exists=True),
        exp.Create(kind="TABLE", this=stage.copy(), expression=keep),
        exp.Insert(
            this=table.copy(),
            expression=exp.select(exp.Star()).from_(stage.copy()),
            overwrite=True,
        ),
        exp.Drop(tables=[stage.copy()], kind="TABLE", exists=True),
    ]
