"""Turning what a user calls a *source* into something SQL can read.

A source is a table or view name (``"t"``, ``"schema.t"``, or a tuple of parts), a
``pyarrow.Table`` (registered, zero copy), a ``pyarrow.RecordBatchReader`` (a stream can be read
only once, so it is copied into a temporary table first), or a path to a Parquet or CSV file
(read in place by the engine).

A table or view name is resolved as the engine resolves it (its search path, temporary objects
first) without running a statement that could fail, and is then always referenced with its
schema: no name the library gives to a part of a query (a CTE) can shadow it, and a view over
it keeps reading the same relation whatever schema a later session uses.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import ObjectName, Warehouse
from warehouse_ml.errors import ColumnError, ParameterError, SourceError
from warehouse_ml.sqlgen.templates import TableName, literal

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

SourceLike = str | os.PathLike | Sequence[str] | TableName | pa.Table | pa.RecordBatchReader


@dataclass(frozen=True)
class Source:
    """A readable relation.

    Attributes:
        relation: a sqlglot ``Table`` node to put after ``FROM`` (a quoted, schema-qualified
            name or a table function such as ``read_parquet('...')``), or an aliased subquery.
        schema: the Arrow schema of its columns.
        description: how the user named it (stored in the model catalog).
        durable: whether a view may refer to it after this process ends (tables, views and
            files are durable; registered Arrow data and temporary tables are not).
        object: the table or view it is, as the engine resolves it (None for files, Arrow
            data and subqueries).
        spec: how a view records it, to read it again when the view is rebuilt
            (``{"table": [schema, name]}`` or ``{"file": path}``), or None when not durable.
    """

    relation: exp.Expression
    schema: pa.Schema
    description: str
    durable: bool
    object: ObjectName | None = None
    spec: dict[str, Any] | None = None

    @property
    def columns(self) -> list[str]:
        """Column names in source order."""
        return list(self.schema.names)

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
                f"{what} needs a durable source (a table or view name, or a Parquet/CSV path) "
                "so that SQL clients can query it later; registered Arrow data and temporary "
                f"tables disappear with this session (got {self.description})"
            )
        return self.spec


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
    return SourceError(f"source table {str(name)!r} does not exist or cannot be read{hint}")


ARROW_DESCRIPTION = "an Arrow table"
"""How a source made from Arrow data is described (in messages and in the model catalog)."""


def schema_if_exists(warehouse: Warehouse, name: TableName) -> pa.Schema | None:
    """The columns of the table or view ``name`` reads, or None when there is none."""
    located = warehouse.resolve_existing(name)
    return None if located is None else warehouse.schema_of(located.name.parts.to_table())


@contextlib.contextmanager
def open_source(warehouse: Warehouse, source: SourceLike) -> Iterator[Source]:
    """Resolve ``source`` for the duration of a ``with`` block; temporary objects are removed."""
    if isinstance(source, pa.RecordBatchReader):
        source = source.read_all()
    if isinstance(source, pa.Table):
        check_case(warehouse, source.schema, ARROW_DESCRIPTION)
        name = warehouse.register_arrow(source)
        try:
            yield Source(name.to_table(), source.schema, ARROW_DESCRIPTION, durable=False)
        finally:
            warehouse.unregister(name)
        return
    if is_path(source):
        path = Path(source).expanduser().resolve()
        if not path.is_file():
            raise SourceError(f"source file {str(path)!r} does not exist")
        relation = _file_relation(path)
        schema = warehouse.schema_of(relation)
        check_case(warehouse, schema, str(path))
        yield Source(relation, schema, str(path), True, spec={"file": str(path)})
        return
    if not isinstance(source, (str, TableName, tuple, list)):
        raise SourceError(
            "expected a table name, a pyarrow Table or RecordBatchReader, or a .parquet/.csv "
            f"path as source; got {type(source).__name__}"
        )
    name = TableName.parse(source)
    located = warehouse.resolve_existing(name)
    if located is None:
        raise _missing(warehouse, name)
    relation = located.name.parts.to_table()
    try:
        schema = warehouse.schema_of(relation)
    except SourceError as error:
        raise SourceError(f"source {str(name)!r} cannot be read: {error}") from error
    check_case(warehouse, schema, str(name))
    spec = None if located.temporary else {"table": list(located.name.parts.parts)}
    yield Source(relation, schema, str(name), not located.temporary, located.name, spec)


def source_from_spec(spec: dict[str, Any]) -> SourceLike:
    """The source a view's :attr:`Source.spec` records."""
    return spec["file"] if "file" in spec else TableName(tuple(spec["table"]))
