"""Readers of a prediction view while another connection re-fits its model (issue 6 item 4).

A model ``m`` is fitted on one table and its view ``scores`` is registered; re-fits alternate
between two models that give different probabilities on EVERY scored row (Naive Bayes on
``train_a``, TAN on ``train_b``), so any mix of the two (some rows or columns from each, or a
view of one over the tables of the other) matches neither. Every reader snapshot (all rows of
the view, ordered by key) must equal the old model's output or the new one's exactly, and no
read may fail.

* Stepped: a reader reads between EVERY two statements of a re-fit (the writer waits for the
  read). DuckDB: the read always completes and sees the old model until the publishing
  transaction commits. PostgreSQL: a read issued after the transaction has dropped the view
  waits for the writer's lock; the writer then goes on, commits, and the read returns the new
  model.
* Free-running: reader threads query the view in a loop while the writer re-fits repeatedly.

DuckDB allows one writing process per database file (another process cannot even open it
read-only while the writer has it open), so DuckDB readers are other connections
(``connection.cursor()``) to the same file-backed database, in threads of the writer's process.
PostgreSQL readers are separate psycopg connections (separate server backends).
"""

from __future__ import annotations

import concurrent.futures
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.store import catalog

HANG_GUARD = 120.0
"""Seconds after which a read that neither finished nor waits for a lock fails the test (a hang,
not a timing requirement)."""


# -- data -----------------------------------------------------------------------------------------
def tables(seed: int = 5) -> dict[str, pa.Table]:
    """Two training tables with different class-conditional distributions, and the scored
    table (id, a, b, c, x; no class)."""
    rng = np.random.default_rng(seed)

    def sample(n: int, shift: int) -> dict[str, Any]:
        y = rng.integers(0, 2, n)
        return {
            "id": np.arange(n),
            "a": [f"a{(v * 2 + shift + rng.integers(0, 3)) % 4}" for v in y],
            "b": [f"b{(v + rng.integers(0, 2 + shift)) % 3}" for v in y],
            "c": [f"c{rng.integers(0, 3)}" for _ in y],
            "x": rng.normal(y * (1.0 + shift), 1.0),
            "cls": np.where(y == 1, "yes", "no"),
        }

    train_a, train_b, scored = sample(300, 0), sample(300, 1), sample(120, 0)
    scored.pop("cls")
    return {"train_a": pa.table(train_a), "train_b": pa.table(train_b), "scored": pa.table(scored)}


def load(warehouse: Warehouse) -> None:
    """Write the data tables into the engine as durable tables."""
    for name, table in tables().items():
        registered = warehouse.register_arrow(table)
        try:
            warehouse.run_tree(
                templates.create_table_as(
                    TableName((name,)), templates.build("select_all", source=registered)
                )
            )
        finally:
            warehouse.unregister(registered)


FITS = {  # two models of one name, each replacing the other (replace=True: kind and data differ)
    "A": lambda con: wml.NaiveBayes().fit(
        con, "train_a", "cls", keys=["id"], name="m", replace=True
    ),
    "B": lambda con: wml.TAN().fit(con, "train_b", "cls", keys=["id"], name="m", replace=True),
}
READ = "SELECT * FROM scores ORDER BY id"


# -- engines --------------------------------------------------------------------------------------
@dataclass
class Engine:
    """A writer connection, a way to open reader connections, and the engine's read."""

    writer: Any
    open_reader: Callable[[], Any]
    read: Callable[[Any], list[tuple]]
    waits_for_lock: Callable[[Any], bool]
    """Whether a reader connection is waiting for a lock held by another transaction."""


@pytest.fixture
def duckdb_engine(tmp_path) -> Iterator[Engine]:
    writer = duckdb.connect(str(tmp_path / "concurrent.duckdb"))
    yield Engine(
        writer,
        writer.cursor,  # another connection to the same database
        lambda reader: reader.sql(READ).fetchall(),
        lambda reader: False,  # DuckDB readers never wait: MVCC snapshots
    )
    writer.close()


@pytest.fixture
def postgres_engine(postgres_conninfo) -> Iterator[Engine]:
    """A fresh database on the module's PostgreSQL server."""
    import psycopg

    database = f"c{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_conninfo, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {database}")
    conninfo = postgres_conninfo.replace("dbname=postgres", f"dbname={database}")
    opened: list[Any] = []

    def open_connection() -> Any:
        opened.append(psycopg.connect(conninfo, autocommit=True))
        return opened[-1]

    monitor = open_connection()

    def waits_for_lock(reader: Any) -> bool:
        row = monitor.execute(
            "SELECT cardinality(pg_blocking_pids(%s))", (reader.info.backend_pid,)
        ).fetchone()
        return bool(row[0])

    yield Engine(
        open_connection(),
        open_connection,
        lambda reader: [tuple(r) for r in reader.execute(READ).fetchall()],
        waits_for_lock,
    )
    for connection in opened:
        connection.close()


ENGINES = [
    pytest.param("duckdb_engine", id="duckdb"),
    pytest.param("postgres_engine", id="postgres", marks=pytest.mark.engines),
]


def prepare(engine: Engine) -> dict[str, list[tuple]]:
    """Load the data, fit ``m`` as model A with view ``scores``; return each model's view rows
    (A, B, and A again after a re-fit: identical, or the comparison below means nothing)."""
    load(connect(engine.writer))
    FITS["A"](engine.writer).create_view(engine.writer, "scores", "scored", keys=["id"])
    reader = engine.open_reader()
    outputs = {"A": engine.read(reader)}
    FITS["B"](engine.writer)
    outputs["B"] = engine.read(reader)
    FITS["A"](engine.writer)
    assert engine.read(reader) == outputs["A"]  # a re-fit reproduces the view bit for bit
    a, b = outputs["A"], outputs["B"]
    assert len(a) == len(b) == 120
    assert all(ra[0] == rb[0] and ra[1:] != rb[1:] for ra, rb in zip(a, b))  # every row differs
    return outputs


def which(outputs: dict[str, list[tuple]], rows: list[tuple]) -> str:
    """The model whose output ``rows`` is, or "mix"."""
    return next((name for name, expected in outputs.items() if rows == expected), "mix")


# -- stepped: a read between every two statements of a re-fit --------------------------------------
class SteppedReader:
    """Reads the view in its own thread each time :meth:`step` is called, and returns once the
    read has finished or is waiting for a lock that the writer holds."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.pool = concurrent.futures.ThreadPoolExecutor(1)
        self.connection = self.pool.submit(engine.open_reader).result()
        self.reads: list[tuple[concurrent.futures.Future, bool]] = []  # (read, waited)
        self.steps = 0
        self.skipped = 0

    def step(self, _sql: str = "") -> None:
        self.steps += 1
        if self.reads and not self.reads[-1][0].done():
            self.skipped += 1  # the previous read still waits for the writer's lock
            return
        read = self.pool.submit(self.engine.read, self.connection)
        started = time.monotonic()
        while True:
            try:
                read.result(timeout=0.005)
                self.reads.append((read, False))
                return
            except concurrent.futures.TimeoutError:
                pass
            if self.engine.waits_for_lock(self.connection):
                self.reads.append((read, True))
                return
            assert time.monotonic() - started < HANG_GUARD, "a read neither finished nor waits"

    def after(self) -> None:
        """A last read once the writer is done (after any read still waiting has finished)."""
        if self.reads:
            self.reads[-1][0].result(timeout=HANG_GUARD)
        self.step()

    def results(self) -> list[tuple[list[tuple], bool]]:
        """Each read's rows and whether it had to wait for the writer's lock."""
        return [(read.result(timeout=HANG_GUARD), waited) for read, waited in self.reads]


@pytest.mark.parametrize("engine_name", ENGINES)
def test_a_read_between_every_statement_of_a_refit_sees_old_or_new(engine_name, request):
    engine = request.getfixturevalue(engine_name)
    outputs = prepare(engine)  # model A is in place: re-fit B (NB -> TAN, another view SQL)
    refit, old = "B", "A"
    reader = SteppedReader(engine)
    FITS[refit](connect(engine.writer, on_sql=reader.step))
    reader.after()
    results = reader.results()
    seen = [(which(outputs, rows), waited) for rows, waited in results]
    assert reader.steps > 18  # one per statement of the re-fit, plus one after it
    assert len(seen) + reader.skipped == reader.steps
    assert all(name in outputs for name, _ in seen), seen
    assert seen[-1] == (refit, False)
    for name, waited in seen[:-1]:
        # during the re-fit: the old model, or (PostgreSQL) after waiting for the commit, the new
        assert name == (refit if waited else old), seen
    waits = sum(waited for _, waited in seen)
    # what the reader saw, shown with the test's report when it fails (pytest -rA shows it)
    print(
        f"{engine_name}: {reader.steps - 1} statements in the re-fit, {len(seen)} reads "
        f"({waits} waited for the commit), models seen {Counter(n for n, _ in seen)}"
    )
    if engine_name == "duckdb_engine":
        assert not any(waited for _, waited in seen)
    else:  # the reads issued after the view was dropped in the transaction waited for it
        assert any(waited for _, waited in seen)


# -- free-running readers -----------------------------------------------------------------------
READERS = 2
REFITS = 4


@pytest.mark.parametrize("engine_name", ENGINES)
def test_readers_in_other_connections_during_repeated_refits(engine_name, request):
    engine = request.getfixturevalue(engine_name)
    outputs = prepare(engine)
    stop = threading.Event()
    seen: list[Counter] = [Counter() for _ in range(READERS)]
    failures: list[BaseException] = []

    def reader(counts: Counter) -> None:
        connection = engine.open_reader()
        try:
            while not stop.is_set():
                counts[which(outputs, engine.read(connection))] += 1
        except BaseException as error:  # reported below: a reader must never fail
            failures.append(error)

    threads = [threading.Thread(target=reader, args=(c,)) for c in seen]
    for thread in threads:
        thread.start()
    try:
        for i in range(REFITS):
            FITS["B" if i % 2 == 0 else "A"](engine.writer)
    finally:
        stop.set()
        for thread in threads:
            thread.join(HANG_GUARD)
    total = sum(seen, Counter())
    print(f"{engine_name}: {REFITS} re-fits, {READERS} readers, snapshots {dict(total)}")
    assert not failures, failures
    assert total["mix"] == 0
    assert total["A"] + total["B"] >= READERS  # every reader read at least once


# -- concurrent writers ---------------------------------------------------------------------------
@pytest.mark.parametrize("engine_name", ENGINES)
def test_concurrent_refits_of_one_model_leave_one_consistent_model(engine_name, request):
    """Two connections re-fit ``m`` at the same time: each fit either publishes or fails with
    ConcurrentFitError (and then leaves nothing behind); at the end the catalog has one row for
    ``m``, the schema ``wml`` holds exactly its tables, and the view is its output."""
    engine = request.getfixturevalue(engine_name)
    outputs = prepare(engine)
    outcomes: list[str] = []

    def writer(key: str) -> None:
        connection = engine.open_reader()
        for _ in range(4):
            try:
                FITS[key](connection)
                outcomes.append("published")
            except wml.ConcurrentFitError as error:
                outcomes.append(type(error).__name__)

    threads = [threading.Thread(target=writer, args=(key,)) for key in "AB"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD)
    assert len(outcomes) == 8 and "published" in outcomes, outcomes
    model = only_model_m(engine)
    assert engine.read(engine.open_reader()) == outputs["A" if model.kind == "naive_bayes" else "B"]


def only_model_m(engine: Engine) -> wml.NaiveBayes | wml.TAN:
    """Model ``m``, after checking that the catalog holds it alone and that schema ``wml``
    holds exactly its tables (nothing a failed writer staged is left)."""
    warehouse = connect(engine.writer)
    rows = catalog.list_models(warehouse)
    assert [r["name"] for r in rows] == ["m"]
    model = wml.load(engine.writer, "m")
    expected = {"models", "objects"} | {model.record.table(p).name for p in model.record.parts}
    schema = TableName(("information_schema", "tables"))
    order = [templates.column("table_name", "t")]
    listed = warehouse.fetch("select_table", table=schema, order_columns=order).to_pylist()
    assert {r["table_name"] for r in listed if r["table_schema"] == "wml"} == expected
    return model


def apply_at_once(engine: Engine, batch_id: str) -> list[str]:
    """Two connections, released together by a barrier, apply batch ``train_b`` to ``m`` under
    one id; the outcome of each (sorted): "published", the library's error's name, or the
    repr of any other error."""
    barrier = threading.Barrier(2)
    results: list[str] = []

    def updater() -> None:
        connection = engine.open_reader()
        model = wml.load(connection, "m")
        barrier.wait()
        try:
            model.update(connection, "train_b", batch_id=batch_id)
            results.append("published")
        except (wml.ConcurrentFitError, wml.BatchAppliedError, wml.StaleModelError) as error:
            results.append(type(error).__name__)
        except Exception as error:  # an engine error escaping: the failure shown
            results.append(repr(error))

    threads = [threading.Thread(target=updater) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD)
    return sorted(results)


@pytest.mark.engines
def test_a_deadlock_the_server_breaks_is_a_write_conflict(postgres_engine):
    """PostgreSQL breaks a deadlock between two publications by rolling one of them back
    (DeadlockDetected, SQLSTATE 40P01: two updates of one batch at once met it on a loaded
    machine, below): that one met a write-write conflict, a ConcurrentFitError to run again,
    as is a serialization failure (40001); any other error is not."""
    from psycopg import errors

    warehouse = connect(postgres_engine.writer)
    assert warehouse.write_conflict(errors.DeadlockDetected("deadlock detected"))
    assert warehouse.write_conflict(errors.SerializationFailure("could not serialize access"))
    assert not warehouse.write_conflict(errors.UniqueViolation("duplicate key value"))
    assert not warehouse.write_conflict(RuntimeError("deadlock detected"))


def test_an_update_whose_read_meets_a_write_conflict_is_a_concurrent_fit_error(monkeypatch):
    """An update reads the counts of the version it started from while another connection
    publishes a version and drops them; PostgreSQL may break the two by rolling the update's
    read back (DeadlockDetected, met by the test below on a loaded machine), DuckDB refuses
    it as a write-write conflict: either is the race a ConcurrentFitError names, whatever the
    catalog holds when the error is read (the other publication may not have committed)."""
    from warehouse_ml.engines.duckdb import DuckDBWarehouse

    con = duckdb.connect()
    warehouse = connect(con)
    load(warehouse)
    model = FITS["A"](con)
    stored = f'"{model.record_.model_id}_'  # the version's own tables
    query, execute = DuckDBWarehouse._query, DuckDBWarehouse._execute

    def refused(sql: str) -> None:
        if stored in sql:
            raise duckdb.TransactionException("Catalog write-write conflict on alter with table")

    monkeypatch.setattr(DuckDBWarehouse, "_query", lambda w, sql: refused(sql) or query(w, sql))
    monkeypatch.setattr(DuckDBWarehouse, "_execute", lambda w, sql: refused(sql) or execute(w, sql))
    with pytest.raises(wml.ConcurrentFitError, match="while this update was reading"):
        model.update(con, "train_b", batch_id="nightly")


@pytest.mark.parametrize("engine_name", ENGINES)
def test_one_batch_applied_by_two_connections_at_once_is_applied_once(engine_name, request):
    """Two connections apply the same update batch (the same id) at the same moment, four
    times: in each round at most one publishes and the other gets ConcurrentFitError (or
    BatchAppliedError, if it read the model after the other's update, or StaleModelError, if
    the other had published before it first read the catalog); no engine error escapes. The model then holds each published batch once."""
    engine = request.getfixturevalue(engine_name)
    load(connect(engine.writer))
    FITS["A"](engine.writer)
    outcomes = [apply_at_once(engine, f"nightly-{i}") for i in range(4)]
    allowed = {"published", "ConcurrentFitError", "BatchAppliedError", "StaleModelError"}
    assert all(len(r) == 2 and set(r) <= allowed for r in outcomes), outcomes
    assert all(r.count("published") <= 1 for r in outcomes), outcomes
    published = [f"nightly-{i}" for i, r in enumerate(outcomes) if "published" in r]
    model = only_model_m(engine)
    assert [b["batch_id"] for b in model.batches_] == published
    assert model.n_rows_ == 300 * (1 + len(published))
