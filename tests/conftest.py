"""Shared fixtures: connections, the project's fixtures/ folder, the shared real data sets."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"


def datasets_dir() -> Path | None:
    """The shared UCI data sets: $WML_DATASETS, or ../shared/datasets next to the repository."""
    candidates = [os.environ.get("WML_DATASETS"), REPO.parent / "shared" / "datasets"]
    for candidate in candidates:
        if candidate and Path(candidate, "SOURCES.md").is_file():
            return Path(candidate)
    return None


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The suite runs on two pytest-xdist workers (``--dist loadgroup`` in pyproject.toml):
    every test on Spark goes to one of them, so one Spark session (a JVM) serves them all,
    while the other tests are shared out between both workers."""
    for item in items:
        callspec = getattr(item, "callspec", None)
        on_spark = callspec is not None and callspec.params.get("engine") == "spark"
        if on_spark or "spark_engine" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))


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
