"""Self-contained scoring SQL for another warehouse (``model.sql``, ``warehouse-ml export``).

The prediction query of a model reads its parameter tables (``wml.m<id>_<part>``) and its
source. Exported, it must run where neither the library nor those tables exist, so:

* every parameter table the query reads becomes a CTE ``wml_param_<part>`` of its rows written as
  literals (floats in their exact ``repr``, every column CAST to its type, so the target engine
  reads the very numbers the model holds), placed before the query's own CTEs; the scoring
  arithmetic is unchanged, so the target computes what the prediction view computes;
* the source is the table name the user gives (default: the table the model was trained from;
  required when that was a file or an Arrow table), written as given, never a file path. Its
  columns' types are read from this database when the name exists here, else taken from the
  model (each feature's fitted type; key columns carried as they are).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import (
    ARROW_DESCRIPTION,
    Source,
    SourceLike,
    is_path,
    opened,
    schema_if_exists,
)
from warehouse_ml.errors import ParameterError
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, alias, column
from warehouse_ml.store import catalog
from warehouse_ml.store.catalog import ModelRecord

_SQL_TYPES = {
    "int8": "TINYINT", "int16": "SMALLINT", "int32": "INT", "int64": "BIGINT",
    "uint8": "SMALLINT", "uint16": "INT", "uint32": "BIGINT", "uint64": "DECIMAL(20, 0)",
    "float": "FLOAT", "double": "DOUBLE", "bool": "BOOLEAN", "string": "VARCHAR",
    "large_string": "VARCHAR",
}  # fmt: skip
_DECIMAL = re.compile(r"decimal(?:128|256)\((\d+), (\d+)\)")
_TIMESTAMP = re.compile(r"timestamp\[(s|ms|us|ns)(?:, tz=(.+))?\]")


def _arrow_type(sql_type: str) -> pa.DataType:
    """The Arrow type a fitted feature's type text names."""
    if decimal := _DECIMAL.fullmatch(sql_type):
        return pa.decimal128(int(decimal[1]), int(decimal[2]))
    if timestamp := _TIMESTAMP.fullmatch(sql_type):
        return pa.timestamp(timestamp[1], timestamp[2])
    try:
        return pa.type_for_alias(sql_type)
    except ValueError as error:
        raise ParameterError(
            f"cannot export for a source that is not in this database with a feature of type "
            f"{sql_type}; expected the source table here too (to read its types)"
        ) from error


def _trained_table(record: ModelRecord) -> str:
    """The table the model was trained from, or a ParameterError asking for one."""
    if record.source == ARROW_DESCRIPTION or is_path(record.source):
        raise ParameterError(
            f"model {record.name!r} was trained from {record.source}, not a table: give the "
            "table of the target warehouse the SQL should read (source=..., CLI --source)"
        )
    return record.source


def export_source(
    warehouse: Warehouse, record: ModelRecord, source: SourceLike | None, keys: Sequence[str]
) -> Source:
    """The source the exported SQL reads, by the name the user gave (see the module doc)."""
    if source is None:
        source = _trained_table(record)
    if isinstance(source, (pa.Table, pa.RecordBatchReader)) or is_path(source):
        raise ParameterError(
            "exported SQL reads a table of the target warehouse: expected its name "
            "(schema.table), got a file or Arrow data"
        )
    name = TableName.parse(source)  # type: ignore[arg-type]
    schema = schema_if_exists(warehouse, name)
    if schema is None:
        fields = [
            pa.field(f, _arrow_type(record.feature_types[f]["sql_type"])) for f in record.features
        ]
        fields += [pa.field(k, pa.null()) for k in keys if k not in record.features]
        schema = pa.schema(fields)
    return opened(name.to_table(), schema, str(name), durable=True)


def _cte_name(part: str) -> str:
    return f"wml_param_{part}"


def _sql_type(arrow_type: pa.DataType, table: TableName) -> exp.DataType:
    text = str(arrow_type)
    if decimal := _DECIMAL.fullmatch(text):
        return exp.DataType.build(f"DECIMAL({decimal[1]}, {decimal[2]})")
    if text not in _SQL_TYPES:
        raise ParameterError(f"cannot write column type {text} of {table} as SQL literals")
    return exp.DataType.build(_SQL_TYPES[text])


def _rows_query(rows: pa.Table, table: TableName) -> exp.Query:
    """``rows`` as a query of literals, each column CAST to its type (no row: ``WHERE 1 = 0``)."""
    names = rows.column_names
    types = [_sql_type(f.type, table) for f in rows.schema]
    if rows.num_rows == 0:
        items = [alias(exp.cast(exp.null(), t), n) for n, t in zip(names, types, strict=True)]
        return exp.select(*items).where(
            exp.EQ(this=exp.Literal.number(1), expression=exp.Literal.number(0))
        )
    listed = [tuple(row.values()) for row in rows.to_pylist()]
    items = [alias(exp.cast(column(n, "v"), t), n) for n, t in zip(names, types, strict=True)]
    return exp.select(*items).from_(templates.values(listed, "v", names))


def inline_parameters(warehouse: Warehouse, record: ModelRecord, query: exp.Query) -> exp.Query:
    """``query`` with each parameter table of ``record`` it reads replaced by a CTE of its
    rows (``wml_param_<part>``), those CTEs first."""
    tables = {tuple(record.table(part).parts[-2:]): part for part in record.parts}
    used: list[str] = []

    def swap(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Table) and (node.db, node.name) in tables:
            part = tables[node.db, node.name]
            if part not in used:
                used.append(part)
            renamed = exp.to_table(_cte_name(part))
            renamed.this.set("quoted", True)
            if node.alias:
                renamed.set("alias", node.args["alias"])
            return renamed
        return node

    query = query.transform(swap, copy=False)
    ctes = [
        exp.CTE(
            this=_rows_query(catalog.read_part(warehouse, record, part), record.table(part)),
            alias=exp.TableAlias(this=exp.to_identifier(_cte_name(part), quoted=True)),
        )
        for part in used
    ]
    existing = query.args.get("with_")
    if existing is None:
        query.set("with_", exp.With(expressions=ctes))
    else:
        existing.set("expressions", [*ctes, *existing.expressions])
    return query
