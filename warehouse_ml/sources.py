"""Turning what a user calls a *source* into something SQL can read.

A source is a table or view name (``"t"``, ``"schema.t"``, or a tuple of parts), a
``pyarrow.Table`` (registered, zero copy), a ``pyarrow.RecordBatchReader`` (a stream can be read
only once, so it is copied into a temporary table first), or a path to a Parquet or CSV file
(read in place by the engine).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.errors import ColumnError, SourceError
from warehouse_ml.templates import TableName, literal
from warehouse_ml.warehouse import Warehouse

FILE_READERS = {
    ".parquet": exp.ReadParquet,
    ".pq": exp.ReadParquet,
    ".csv": exp.ReadCSV,
    ".tsv": exp.ReadCSV,
    ".gz": exp.ReadCSV,
}

SourceLike = str | os.PathLike | Sequence[str] | TableName | pa.Table | pa.RecordBatchReader


@dataclass(frozen=True)
class Source:
    """A readable relation.

    Attributes:
        relation: a sqlglot ``Table`` node to put after ``FROM`` (a quoted name or a table
            function such as ``read_parquet('...')``).
        schema: the Arrow schema of its columns.
        description: how the user named it (stored in the model catalog).
        durable: whether a view may refer to it after this process ends (names and files are
            durable; registered Arrow data is not).
    """

    relation: exp.Table
    schema: pa.Schema
    description: str
    durable: bool

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


def is_path(source: object) -> bool:
    """Whether a source names a file (a PathLike, or a string ending in a known suffix)."""
    if isinstance(source, os.PathLike):
        return True
    return isinstance(source, str) and Path(source).suffix.lower() in FILE_READERS


def _file_relation(path: Path) -> exp.Table:
    reader = FILE_READERS[path.suffix.lower()]
    argument = literal(str(path))
    node = (
        exp.ReadParquet(expressions=[argument])
        if reader is exp.ReadParquet
        else reader(this=argument)
    )
    return exp.Table(this=node)


CASE_INSENSITIVE_DIALECTS = frozenset({"duckdb", "spark"})
"""Engines that resolve even quoted column names case-insensitively."""


def check_case(warehouse: Warehouse, schema: pa.Schema, description: str) -> None:
    """Refuse columns whose names differ only by case on an engine that cannot tell them apart
    (it would silently read one in place of the other)."""
    if warehouse.dialect not in CASE_INSENSITIVE_DIALECTS:
        return
    seen: dict[str, list[str]] = {}
    for name in schema.names:
        seen.setdefault(name.casefold(), []).append(name)
    clashes = [names for names in seen.values() if len(names) > 1]
    if clashes:
        raise ColumnError(
            f"source {description} has columns {clashes[0]} whose names differ only by case; "
            f"expected names that {warehouse.dialect} can tell apart (it matches column names "
            "case-insensitively): rename one of them"
        )


@contextlib.contextmanager
def open_source(warehouse: Warehouse, source: SourceLike) -> Iterator[Source]:
    """Resolve ``source`` for the duration of a ``with`` block; temporary objects are removed."""
    if isinstance(source, pa.RecordBatchReader):
        source = source.read_all()
    if isinstance(source, pa.Table):
        check_case(warehouse, source.schema, "an Arrow table")
        name = warehouse.register_arrow(source)
        try:
            yield Source(name.to_table(), source.schema, "an Arrow table", durable=False)
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
        yield Source(relation, schema, str(path), durable=True)
        return
    if not isinstance(source, (str, TableName, tuple, list)):
        raise SourceError(
            "expected a table name, a pyarrow Table or RecordBatchReader, or a .parquet/.csv "
            f"path as source; got {type(source).__name__}"
        )
    name = TableName.parse(source)
    try:
        schema = warehouse.schema_of(name)
    except SourceError as error:
        raise SourceError(
            f"source table {str(name)!r} does not exist or cannot be read: {error}"
        ) from error
    yield Source(name.to_table(), schema, str(name), durable=True)
