"""Turning what a user calls a *source* into something SQL can read.

A source is a table or view name (``"t"``, ``"schema.t"``, or a tuple of parts), a
``pyarrow.Table`` (registered, zero copy), a ``pyarrow.RecordBatchReader`` (a stream can be read
only once, so it is copied into a temporary table first), a pandas or polars DataFrame (made an
Arrow table: ``pa.Table.from_pandas(df, preserve_index=False)``, ``df.to_arrow()``), a DuckDB
relation (``con.sql(...)``: on the DuckDB database it reads, registered as it is, so its rows are
read where they are; on any other, its rows as Arrow), a path to a Parquet or CSV file (read in
place by the engine), or a :class:`Query` (``wml.query("SELECT ...")``: one SELECT, read as a
subquery).

Only tables, views, files and queries are durable: a view over a DataFrame, a relation or Arrow
data would not outlive this process and is refused; a view over a query holds its text.

A table or view name is resolved as the engine resolves it (its search path, temporary objects
first) without running a statement that could fail, and is then always referenced with its
schema: no name the library gives to a part of a query (a CTE) can shadow it, and a view over
it keeps reading the same relation whatever schema a later session uses. The same holds for the
tables a query names without a schema.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Union, runtime_checkable

import duckdb
import pyarrow as pa
import pyarrow.types as pt
import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError
from sqlglot.optimizer.normalize_identifiers import normalize_identifiers

from warehouse_ml.engines.base import ObjectName, Warehouse
from warehouse_ml.errors import ColumnError, ParameterError, SourceError
from warehouse_ml.sqlgen import expressions
from warehouse_ml.sqlgen.templates import TableName, alias, column, literal

FILE_READERS = {
    ".parquet": exp.ReadParquet,
    ".pq": exp.ReadParquet,
    ".csv": exp.ReadCSV,
    ".tsv": exp.ReadCSV,
    ".gz": exp.ReadCSV,
}

CSV_TYPES = ("BIGINT", "DOUBLE", "VARCHAR")
"""The types a CSV column may be read as: a column of yes/no, true/false or dates stays the
text the file holds (labels and categories keep their spelling); whole numbers are BIGINT and
other numbers DOUBLE."""

if TYPE_CHECKING:
    import pandas


@runtime_checkable
class ArrowConvertible(Protocol):
    """A data frame that makes itself an Arrow table (a polars DataFrame)."""

    def to_arrow(self) -> pa.Table: ...


@dataclass(frozen=True)
class Query:
    """A SQL query read as a source (``wml.query("SELECT ...")``): one SELECT, or WITH ...
    SELECT, checked by sqlglot when made. ``dialect`` is the sqlglot dialect it is written in;
    None: the engine's own, in which it is parsed again when read.

    Its tables are resolved when it is read, as table names are; a view over it holds its text
    (and a model's registered view is rebuilt from that text), so it is a durable source."""

    sql: str
    dialect: str | None = None

    def __post_init__(self) -> None:
        self.tree(self.dialect)

    def tree(self, dialect: str | None) -> exp.Query:
        """The query parsed in ``dialect``; a SourceError when the text is not one query or
        when it holds a statement that writes."""
        try:
            statements = [s for s in sqlglot.parse(self.sql, read=dialect) if s is not None]
        except ParseError as error:
            raise SourceError(f"query source {self}: cannot be parsed ({error})") from error
        if len(statements) != 1 or not isinstance(statements[0], exp.Query):
            kinds = ", ".join(type(s).__name__.upper() for s in statements) or "nothing"
            found = kinds if len(statements) == 1 else f"{len(statements)} statements ({kinds})"
            raise SourceError(
                f"query source {self}: expected one SELECT (or WITH ... SELECT) query; got {found}"
            )
        writing = next(statements[0].find_all(exp.DML, exp.DDL, exp.Command), None)
        if writing is not None:
            raise SourceError(
                f"query source {self}: expected a query that only reads; it holds a "
                f"{type(writing).__name__.upper()} statement"
            )
        return statements[0]

    def __str__(self) -> str:
        text = " ".join(self.sql.split())
        return repr(text if len(text) <= 80 else text[:77] + "...")


def query(sql: str, *, dialect: str | None = None) -> Query:
    """``sql``, one SELECT (or WITH ... SELECT) query, as a source of any call that takes one
    (fit, predict, create_view, cross_validate, ...). ``dialect``: the sqlglot dialect it is
    written in (default: the engine's). A SourceError when it is not one query that only reads."""
    return Query(sql, dialect)


SourceLike = Union[  # "pandas.DataFrame": a forward reference, pandas is optional
    str,
    os.PathLike,
    Sequence[str],
    TableName,
    Query,
    pa.Table,
    pa.RecordBatchReader,
    duckdb.DuckDBPyRelation,
    ArrowConvertible,
    "pandas.DataFrame",
]


@dataclass(frozen=True)
class Source:
    """A readable relation.

    Attributes:
        relation: a sqlglot ``Table`` node to put after ``FROM`` (a quoted, schema-qualified
            name or a table function such as ``read_parquet('...')``), or an aliased subquery.
        schema: the Arrow schema of its columns.
        description: how the user named it (stored in the model catalog).
        durable: whether a view may refer to it after this process ends (tables, views, files
            and queries are durable; registered Arrow data, data frames, DuckDB relations and
            temporary tables are not).
        object: the table or view it is, as the engine resolves it (None for files, Arrow
            data and subqueries).
        spec: how a view records it, to read it again when the view is rebuilt
            (``{"table": [schema, name]}``, ``{"file": path}`` or ``{"query": text,
            "dialect": name or None}``), or None when not durable.
        row: the column a scoring query numbers the rows as, in scan order, when it reads
            them all at once in that order (``predict_proba``); None where the rows must
            stay unnumbered (a view's query: a filter on its output reaches the source only
            through unnumbered rows).
        table: the table (or table function) that ``relation`` reads its text columns from
            (:func:`byte_compared`), when it is one; None when ``relation`` is that table
            itself or reads a query. Compiled scoring SQL (models/scoring/compiled.py) puts
            another table in its place.
    """

    relation: exp.Expression
    schema: pa.Schema
    description: str
    durable: bool
    object: ObjectName | None = None
    spec: dict[str, Any] | None = None
    row: str | None = None
    table: exp.Table | None = None

    @property
    def columns(self) -> list[str]:
        """Column names in source order."""
        return list(self.schema.names)

    @property
    def objects(self) -> list[ObjectName]:
        """The table or view it is, if any: what a call's output must not replace
        (``ownership.claim``'s ``sources``)."""
        return [] if self.object is None else [self.object]

    def field(self, name: str) -> pa.Field:
        """The Arrow field of a column, or a ColumnError naming the source."""
        index = self.schema.get_field_index(name)
        if index < 0:
            raise ColumnError(
                f"source {self.description} has no column {name!r}; its columns are {self.columns}"
            )
        return self.schema.field(index)

    def durable_spec(self, what: str) -> dict[str, Any]:
        """:attr:`spec`, or a ParameterError saying that ``what`` needs a durable source."""
        if self.spec is None:
            raise ParameterError(
                f"{what} needs a durable source (a table or view name, a Parquet/CSV path or "
                "wml.query(...)) so that SQL clients can query it later; data frames, DuckDB "
                "relations, registered Arrow data and temporary tables disappear with this "
                f"session (got {self.description})"
            )
        return self.spec


TEXT_COLUMNS = "wml_text_columns"
"""The alias of :func:`byte_compared`'s projection."""


def is_text_type(t: pa.DataType) -> bool:
    """Whether a column of Arrow type ``t`` holds text (string, large string, string view)."""
    return pt.is_string(t) or pt.is_large_string(t) or pt.is_string_view(t)


def byte_compared(relation: exp.Expression, schema: pa.Schema) -> exp.Expression:
    """``relation`` as every call reads a source: each text column compared, grouped and sorted
    by its bytes (``COLLATE C``, expressions.byte_compared), whatever collation the column
    has (DuckDB ``VARCHAR COLLATE NOCASE``, a PostgreSQL column collation or ``citext``) or the
    session gives text (DuckDB's ``default_collation``), so that 'B' never matches a stored
    'b'; the value itself is unchanged, so keys come back as stored. Every other column is
    read as it is. ``relation`` itself when it has no text column, else ``(SELECT c1, c2
    COLLATE C AS c2, ... FROM relation) AS wml_text_columns``."""
    if not any(is_text_type(field.type) for field in schema):
        return relation
    items = [
        alias(expressions.byte_compared(column(field.name)), field.name)
        if is_text_type(field.type)
        else column(field.name)
        for field in schema
    ]
    return exp.select(*items).from_(relation.copy()).subquery(TEXT_COLUMNS)


def opened(
    relation: exp.Expression, schema: pa.Schema, description: str, durable: bool, **facts: Any
) -> Source:
    """The :class:`Source` reading ``relation`` (a table, a table function or an aliased
    subquery) of columns ``schema``: its text columns compared by their bytes
    (:func:`byte_compared`); ``facts`` are the other fields."""
    compared = byte_compared(relation, schema)
    table = relation if compared is not relation and isinstance(relation, exp.Table) else None
    return Source(compared, schema, description, durable, table=table, **facts)


def is_path(source: object) -> bool:
    """Whether a source names a file (a PathLike, or a string ending in a known suffix)."""
    if isinstance(source, os.PathLike):
        return True
    return isinstance(source, str) and Path(source).suffix.lower() in FILE_READERS


def _file_relation(path: Path) -> exp.Table:
    reader = FILE_READERS[path.suffix.lower()]
    argument = literal(str(path))
    if reader is exp.ReadParquet:
        return exp.Table(this=exp.ReadParquet(expressions=[argument]))
    candidates = exp.Array(expressions=[literal(t) for t in CSV_TYPES])
    option = exp.EQ(this=exp.column("auto_type_candidates"), expression=candidates)
    return exp.Table(this=reader(this=argument, expressions=[option]))


def check_case(warehouse: Warehouse, schema: pa.Schema, description: str) -> None:
    """Refuse columns whose names the engine cannot tell apart (it would silently read one in
    place of the other), and names with a NUL character (engines end a name there)."""
    nul = [name for name in schema.names if "\x00" in name]
    if nul:
        raise ColumnError(
            f"source {description} has a column named {nul[0]!r}, which contains a NUL "
            "character; expected column names without one (SQL engines end a name at NUL): "
            "rename it"
        )
    seen: dict[str, list[str]] = {}
    for name in schema.names:
        seen.setdefault(warehouse.fold(name), []).append(name)
    clashes = [names for names in seen.values() if len(names) > 1]
    if clashes:
        raise ColumnError(
            f"source {description} has columns {clashes[0]} whose names differ only by case; "
            f"expected names that {warehouse.dialect} can tell apart (it matches column names "
            "case-insensitively): rename one of them"
        )


def _missing(warehouse: Warehouse, name: TableName) -> SourceError:
    hint = (
        ""
        if warehouse.sees_user_objects
        else (
            " (your DuckDB connection holds an unfinished result, so warehouse-ml worked on a "
            "cursor of the same database, which does not see the connection's TEMP tables or "
            "registered Arrow objects: fetch the result to its end first, or pass the data "
            "itself)"
        )
    )
    if str(name).lstrip().lower().startswith(("select ", "with ")):
        hint += "; to read a query, pass wml.query(...) as the source"
    return SourceError(f"source table {str(name)!r} does not exist or cannot be read{hint}")


ARROW_DESCRIPTION = "an Arrow table"
"""How a source made from Arrow data is described (in messages and in the model catalog)."""

RELATION_DESCRIPTION = "a DuckDB relation"


def _as_arrow(source: object) -> tuple[pa.Table, str] | None:
    """A data frame's rows as an Arrow table and how to describe it, or None for anything
    else. pandas is recognised only when the caller has imported it (no DataFrame exists
    otherwise); any other frame by its ``to_arrow()`` (polars)."""
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(source, pandas.DataFrame):
        return pa.Table.from_pandas(source, preserve_index=False), "a pandas DataFrame"
    if isinstance(source, ArrowConvertible) and not isinstance(source, (str, os.PathLike)):
        table = source.to_arrow()
        return table, f"a {type(source).__module__.split('.')[0]} {type(source).__name__}"
    return None


def _qualified(warehouse: Warehouse, tree: exp.Query, dialect: str) -> exp.Query:
    """``tree`` with every table it names without a schema (and not one of its own CTEs)
    replaced by the relation the engine resolves it to, keeping the name as its alias; names
    the engine does not find are left to the engine."""
    tree = tree.copy()
    own = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    for table in list(tree.find_all(exp.Table)):
        if table.args.get("db") or not isinstance(table.this, exp.Identifier):
            continue
        if table.name in own:
            continue
        spelled = normalize_identifiers(table.this.copy(), dialect=dialect).name
        located = warehouse.resolve_existing(TableName((spelled,)))
        if located is None:
            continue
        alias = table.alias or table.name
        resolved = located.name.parts.to_table().as_(exp.to_identifier(alias, quoted=True))
        table.replace(resolved)
    return tree


def schema_if_exists(warehouse: Warehouse, name: TableName) -> pa.Schema | None:
    """The columns of the table or view ``name`` reads, or None when there is none."""
    located = warehouse.resolve_existing(name)
    return None if located is None else warehouse.schema_of(located.name.parts)


@contextlib.contextmanager
def open_source(warehouse: Warehouse, source: SourceLike) -> Iterator[Source]:
    """Resolve ``source`` for the duration of a ``with`` block; temporary objects are removed."""
    if isinstance(source, duckdb.DuckDBPyRelation):
        name = warehouse.register_relation(source)
        if name is None:
            source = source.to_arrow_table()
        else:
            try:
                schema = warehouse.schema_of(name.to_table())
                check_case(warehouse, schema, RELATION_DESCRIPTION)
                yield opened(name.to_table(), schema, RELATION_DESCRIPTION, durable=False)
            finally:
                warehouse.unregister(name)
            return
    described = ARROW_DESCRIPTION
    if isinstance(source, pa.RecordBatchReader):
        source = source.read_all()
    elif not isinstance(source, pa.Table) and (frame := _as_arrow(source)) is not None:
        source, described = frame
    if isinstance(source, pa.Table):
        check_case(warehouse, source.schema, described)
        name = warehouse.register_arrow(source)
        try:
            yield opened(name.to_table(), source.schema, described, durable=False)
        finally:
            warehouse.unregister(name)
        return
    if isinstance(source, Query):
        dialect = source.dialect or warehouse.dialect
        relation = _qualified(warehouse, source.tree(dialect), dialect).subquery("wml_query")
        try:
            schema = warehouse.schema_of(relation)
        except SourceError as error:
            raise SourceError(f"query source {source} cannot be read: {error}") from error
        check_case(warehouse, schema, f"query {source}")
        spec = {"query": source.sql, "dialect": source.dialect}
        yield opened(relation, schema, f"query {source}", True, spec=spec)
        return
    if is_path(source):
        path = Path(source).expanduser().resolve()
        if not path.is_file():
            raise SourceError(f"source file {str(path)!r} does not exist")
        relation = _file_relation(path)
        schema = warehouse.schema_of(relation)
        check_case(warehouse, schema, str(path))
        yield opened(relation, schema, str(path), True, spec={"file": str(path)})
        return
    if not isinstance(source, (str, TableName, tuple, list)):
        raise SourceError(
            "expected a table name, a .parquet/.csv path, wml.query(...), a pyarrow Table or "
            "RecordBatchReader, a pandas or polars DataFrame or a DuckDB relation as source; "
            f"got {type(source).__name__}"
        )
    name = TableName.parse(source)
    located = warehouse.resolve_existing(name)
    if located is None:
        raise _missing(warehouse, name)
    relation = located.name.parts.to_table()
    try:
        schema = warehouse.schema_of(located.name.parts)  # by name: a text rendered once
    except SourceError as error:
        raise SourceError(f"source {str(name)!r} cannot be read: {error}") from error
    check_case(warehouse, schema, str(name))
    spec = None if located.temporary else {"table": list(located.name.parts.parts)}
    yield opened(relation, schema, str(name), not located.temporary, object=located.name, spec=spec)


def describes(warehouse: Warehouse, source: Source, description: str) -> bool:
    """Whether ``description`` (a source as a model's catalog row names it) is ``source``: the
    same text, or, for a table or view, a name the engine resolves to the same object
    (``customers`` and ``main.customers``)."""
    if description == source.description:
        return True
    if source.object is None or not 1 <= len(description.split(".")) <= 3:
        return False
    located = warehouse.resolve_existing(TableName.parse(description))
    return located is not None and located.name.key == source.object.key


def source_from_spec(spec: dict[str, Any]) -> SourceLike:
    """The source a view's :attr:`Source.spec` records."""
    if "query" in spec:
        return Query(spec["query"], spec.get("dialect"))
    return spec["file"] if "file" in spec else TableName(tuple(spec["table"]))
