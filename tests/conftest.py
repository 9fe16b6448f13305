"""Shared fixtures: connections, the project's fixtures/ folder, the shared real data sets."""

from __future__ import annotations

import inspect
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import hypothesis_profiles  # noqa: F401  (loads $WML_HYPOTHESIS's profile first)
import pytest
from _pytest import nodes

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"

CLUSTER_TARGET = "spark_cluster"
SPARK_TARGETS = {"spark", CLUSTER_TARGET}
"""The Spark targets of the engines suite: ``local[2]`` and a standalone cluster."""
SERVER_TARGETS = {*SPARK_TARGETS, "postgres"}
"""The engines a test reaches through a server of its own (a PostgreSQL cluster, a JVM)."""
SERVER_FIXTURES = {"postgres_conninfo", "spark_sessions"}
"""The session fixtures that start those servers."""


def datasets_dir() -> Path | None:
    """The shared UCI data sets: $WML_DATASETS, or ../shared/datasets next to the repository."""
    candidates = [os.environ.get("WML_DATASETS"), REPO.parent / "shared" / "datasets"]
    for candidate in candidates:
        if candidate and Path(candidate, "SOURCES.md").is_file():
            return Path(candidate)
    return None


@pytest.hookimpl(hookwrapper=True)  # around pytest-xdist reading the groups, pytest's ordering
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """The suite runs on three pytest-xdist workers (``--dist loadgroup`` in pyproject.toml):
    every test on Spark (a parameter ``engine`` or ``engine_name``, or a fixture
    ``<target>_engine``, naming one of SPARK_TARGETS) goes to one of them, so one driver JVM
    serves them all (``spark_sessions``), while the other tests are shared out between the
    workers.

    The cluster's tests run after every ``local[2]`` one: the driver holds one session at a
    time (``spark_sessions``), so each change of target stops the live session and starts the
    other (on the cluster, two executor JVMs that compile Spark's code again from cold), and in
    collection order the target changed six times. (The order is set after every
    other hook, pytest's own reordering by parameters included.)

    A test on PostgreSQL or Spark (such a parameter, or a fixture that starts a server,
    :data:`SERVER_FIXTURES`) is marked ``engines``, and every ``engines`` test ``slow``: the
    quick loop (``-m "not slow"``) starts no server."""
    on_cluster: set[int] = set()
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        fixtures = set(getattr(item, "fixturenames", ()))
        engines = {params.get("engine"), params.get("engine_name")}
        engines |= {name.removesuffix("_engine") for name in fixtures}
        if SERVER_TARGETS & engines or SERVER_FIXTURES & fixtures:
            item.add_marker(pytest.mark.engines)
        if item.get_closest_marker("engines") is not None:
            item.add_marker(pytest.mark.slow)
        if SPARK_TARGETS & engines:
            item.add_marker(pytest.mark.xdist_group("spark"))
        if CLUSTER_TARGET in engines:
            on_cluster.add(id(item))
    yield
    items.sort(key=lambda item: id(item) in on_cluster)  # stable: each part keeps its order


def pytest_configure(config: pytest.Config) -> None:
    """Refuse a ``--dist loadgroup`` run that would not group: pytest-xdist groups a test by
    renaming its ``item._nodeid``, which a pytest whose ``nodeid`` is built otherwise (9.2)
    ignores (pyproject.toml pins the two). Each worker would then start its own Spark
    driver, and two JVMs on two cores slow the whole suite severalfold."""
    if config.getoption("dist", "no") != "loadgroup":
        return
    if "_nodeid" not in inspect.getsource(nodes.Node.nodeid.fget):
        raise pytest.UsageError(
            f"pytest-xdist's --dist loadgroup cannot group the tests of pytest "
            f"{pytest.__version__}: install the versions pyproject.toml pins "
            '(python -m pip install -e ".[test]")'
        )


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    """A fresh in-memory DuckDB connection."""
    connection = duckdb.connect()
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def postgres_conninfo() -> Iterator[str]:
    """A libpq connection string to a throw-away PostgreSQL cluster, shared by the session
    (engine_support.postgres_server); the test is skipped without psycopg or the server."""
    pytest.importorskip("psycopg", reason='needs pip install -e ".[postgres]"')
    from engine_support import postgres_server

    try:
        server = postgres_server()
        conninfo = server.__enter__()
    except RuntimeError as error:
        pytest.skip(f"PostgreSQL not available: {error}")
    try:
        yield conninfo
    finally:
        server.__exit__(None, None, None)


@pytest.fixture(scope="session")
def spark_sessions() -> Iterator[Any]:
    """The run's Spark sessions, ``local[2]`` and on a standalone cluster of two workers
    started on first use, one alive at a time (engine_support.SparkSessions); all stopped at
    the end of the session, the cluster's JVMs and folders with them. Skipped without
    PySpark."""
    pytest.importorskip("pyspark", reason='needs pip install -e ".[spark]"')
    from engine_support import SparkSessions

    sessions = SparkSessions()
    try:
        yield sessions
    finally:
        sessions.close()


@pytest.fixture
def datasets() -> Path:
    """The shared data sets folder; the test is skipped where it is absent."""
    folder = datasets_dir()
    if folder is None:
        pytest.skip("shared data sets not found (set WML_DATASETS)")
    return folder


def load_text_csv(
    con: duckdb.DuckDBPyConnection, table: str, path: Path, integers: tuple[str, ...] = ()
) -> None:
    """Load a CSV into a DuckDB table with every column as text (empty field = NULL), except the
    named integer columns. (DuckDB's sniffer would read yes/no columns as BOOLEAN.)"""
    rows = con.read_csv(str(path), all_varchar=True)
    casts = ", ".join(
        f'CAST("{c}" AS INTEGER) AS "{c}"' if c in integers else f'"{c}"' for c in rows.columns
    )
    con.execute(
        f"CREATE TABLE {table} AS SELECT {casts} FROM read_csv('{path}', all_varchar = true)"
    )


@pytest.fixture
def tennis(con) -> str:
    """The PlayTennis table as text columns plus the integer key ``day``; returns its name."""
    load_text_csv(con, "tennis", FIXTURES / "play_tennis.csv", integers=("day",))
    return "tennis"
