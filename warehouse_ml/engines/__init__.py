"""Engines: the adapters between the library and a warehouse (engines/base.py), one per engine
(duckdb.py, postgres.py, spark.py), and the factory that picks one for a connection.

The factory lives here, not in base.py: base.py knows no engine, and the optional engines'
modules are imported only when their driver is already loaded by the caller.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any

from duckdb import DuckDBPyConnection

from warehouse_ml.engines.base import SqlCallback, Warehouse
from warehouse_ml.engines.duckdb import DuckDBWarehouse
from warehouse_ml.errors import SourceError
from warehouse_ml.progress import ProgressCallback

# Also accepted: a ``psycopg.Connection`` and a ``pyspark.sql.SparkSession`` (optional extras).
Connectable = Warehouse | DuckDBPyConnection | str | os.PathLike | Any | None


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
    if con is None or isinstance(con, (str, os.PathLike)):
        return DuckDBWarehouse.open(str(con) if con else ":memory:", on_sql)
    if isinstance(con, DuckDBPyConnection):
        return DuckDBWarehouse(con, on_sql)
    # Optional engines, imported only when their driver is already loaded by the caller.
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(con, psycopg.Connection):
        from warehouse_ml.engines.postgres import PostgresWarehouse

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
        from warehouse_ml.engines.spark import SparkWarehouse

        return SparkWarehouse(con, on_sql)
    raise SourceError(
        "expected a duckdb connection, a psycopg Connection, a pyspark SparkSession, a DuckDB "
        f"database path, a Warehouse or None; got {type(con).__name__}"
    )


@contextlib.contextmanager
def session(
    con: Connectable, operation: str | None = None, progress: ProgressCallback | None = None
) -> Iterator[Warehouse]:
    """The adapter one public call runs on: :func:`connect`, then :meth:`Warehouse.session`
    (the connection's state checked once per outermost call), reporting statements to
    ``progress`` as ``operation``."""
    with connect(con).session() as warehouse:
        if operation is None:
            yield warehouse
            return
        with warehouse.operation(operation, progress):
            yield warehouse


__all__ = ["Connectable", "DuckDBWarehouse", "Warehouse", "connect", "session"]
