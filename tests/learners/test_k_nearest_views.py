"""k-NN prediction views read by a key: the same rows as the whole view, and plans whose filter
reaches the scored source before the neighbour search (the plan's shape, not its timing).

DuckDB's search groups the scored rows by their columns (no row number, no materialised step),
so ``WHERE key = v`` reaches the scan of the source; PostgreSQL's takes each scored row's k
nearest by a LATERAL ``ORDER BY ... LIMIT k``, one scan of the stored rows per scored row and no
window over every pair.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pytest
from engine_support import postgres_server

from warehouse_ml.engines import connect
from warehouse_ml.engines.base import TableName
from warehouse_ml.models.learners.neighbors import k_nearest_neighbors
from warehouse_ml.models.learners.neighbors.k_nearest_neighbors import KNearestNeighbors
from warehouse_ml.sqlgen import templates


def rows(n: int, seed: int) -> pa.Table:
    """Numeric and categorical attributes (with NULLs), a class, and a key ``id``."""
    rng = np.random.default_rng(seed)
    weight = rng.normal(size=n).round(1)
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "size": pa.array(rng.integers(0, 4, n).astype(float)),
            "weight": pa.array([None if i % 9 == 0 else w for i, w in enumerate(weight)]),
            "colour": pa.array([["red", "green", None][i % 3] for i in range(n)]),
            "y": pa.array([f"c{v}" for v in rng.integers(0, 3, n)]),
        }
    )


def operators(node: dict) -> Iterator[dict]:
    """Every operator of a DuckDB JSON plan, depth first."""
    yield node
    for child in node.get("children", []):
        yield from operators(child)


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_a_duckdb_view_read_by_its_key_filters_the_source_first(con, metric):
    """Also with the cosine distance, whose rows carry their squared norm, computed once per
    row in a step of their own."""
    con.register("arrow_train", rows(300, 1))
    con.execute("CREATE TABLE train AS SELECT * FROM arrow_train")
    scored = rows(60, 2)
    con.register("arrow_scored", pa.concat_tables([scored, scored.slice(5, 2)]))
    con.execute("CREATE TABLE scored AS SELECT * FROM arrow_scored")
    model = KNearestNeighbors(k=4, weights="distance", metric=metric).fit(
        con, "train", "y", keys=["id"], categorical=["size"], name="knn_view"
    )
    model.create_view(con, "knn_scores", "scored", keys=["id"])
    whole = con.sql("SELECT * FROM knn_scores ORDER BY id").fetchall()
    assert len(whole) == 62
    for key in (0, 5, 6, 41):
        keyed = con.sql(f"SELECT * FROM knn_scores WHERE id = {key}").fetchall()
        assert keyed == [r for r in whole if r[0] == key]
        assert len(keyed) == (2 if key in (5, 6) else 1)
    same_order = pa.concat_tables([scored, scored.slice(5, 2)])
    probabilities = model.predict_proba(con, same_order)
    expected = {
        key: tuple(probabilities.column(c)[i].as_py() for c in range(3))
        for i, key in enumerate(same_order["id"].to_pylist())
    }
    assert [r[1:4] for r in whole] == [expected[r[0]] for r in whole]
    plan = json.loads(
        con.sql("EXPLAIN (FORMAT json) SELECT * FROM knn_scores WHERE id = 41").fetchall()[0][1]
    )
    nodes = [op for root in plan for op in operators(root)]
    scans = [op for op in nodes if op["name"] == "SEQ_SCAN"]
    sources = [op for op in scans if op["extra_info"]["Table"].endswith(".scored")]
    assert sources and all("id = 41" in op["extra_info"].get("Filters", "") for op in sources)
    assert any(op["extra_info"]["Table"].endswith("_neighbours") for op in scans)
    assert not [op for op in nodes if "WINDOW" in op["name"]]


@pytest.fixture(scope="module")
def postgres():
    psycopg = pytest.importorskip("psycopg", reason='needs pip install -e ".[postgres]"')
    try:
        server = postgres_server()
        dsn = server.__enter__()
    except RuntimeError as error:
        pytest.skip(str(error))
    connection = psycopg.connect(dsn, autocommit=True)
    yield connection
    connection.close()
    server.__exit__(None, None, None)


@pytest.mark.engines
def test_a_postgres_view_takes_each_rows_k_nearest_by_a_lateral_limit(postgres):
    """Each scored row's neighbours by a LATERAL top-k over one scan of the stored rows (no
    window over every pair); a key reads the view's row, with predict_proba's
    probabilities."""
    warehouse = connect(postgres)
    scored = rows(30, 4)
    registered = warehouse.register_arrow(scored)
    try:
        warehouse.run_tree(
            templates.create_table_as(
                TableName(("pg_scored",)), templates.build("select_all", source=registered)
            )
        )
    finally:
        warehouse.unregister(registered)
    model = KNearestNeighbors(k=3).fit(postgres, rows(200, 3), "y", keys=["id"], name="pg_knn")
    model.create_view(postgres, "pg_knn_scores", "pg_scored", keys=["id"])
    plan = "\n".join(
        r[0] for r in postgres.execute("EXPLAIN SELECT * FROM pg_knn_scores WHERE id = 7")
    )
    assert "Nested Loop" in plan and "Limit" in plan and "WindowAgg" not in plan
    assert plan.count("_neighbours") == 1
    keyed = postgres.execute("SELECT * FROM pg_knn_scores WHERE id = 7").fetchall()
    whole = postgres.execute("SELECT * FROM pg_knn_scores ORDER BY id").fetchall()
    assert len(whole) == 30 and keyed == [r for r in whole if r[0] == 7]
    probabilities = model.predict_proba(postgres, scored)
    assert [r[1:4] for r in whole] == [
        tuple(probabilities.column(c)[i].as_py() for c in range(3)) for i in range(30)
    ]


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_a_duckdb_view_breaks_ties_across_the_kth_neighbour_by_key(con, weights):
    """On a grid of few points every scored row has dozens of stored rows at its k-th
    distance: the view's one pass cannot tell which of them are the k nearest, and its second
    pass over those rows breaks the tie by key, as ``predict_proba``'s ranking does."""
    rng = np.random.default_rng(7)
    n = 300
    grid = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "size": pa.array(rng.integers(0, 2, n).astype(float)),
            "colour": pa.array([["red", "green"][v] for v in rng.integers(0, 2, n)]),
            "y": pa.array([f"c{v}" for v in rng.integers(0, 3, n)]),
        }
    )
    con.register("arrow_grid", grid)
    con.execute("CREATE TABLE grid AS SELECT * FROM arrow_grid")
    model = KNearestNeighbors(k=4, weights=weights).fit(
        con, "grid", "y", keys=["id"], name=f"knn_grid_{weights}"
    )
    model.create_view(con, f"grid_scores_{weights}", "grid", keys=["id"])
    viewed = con.sql(f"SELECT * FROM grid_scores_{weights} ORDER BY id").fetchall()
    expected = model.predict_proba(con, "grid")
    assert [r[1:4] for r in viewed] == [
        tuple(expected.column(c)[i].as_py() for c in range(3)) for i in range(n)
    ]


def test_a_duckdb_view_read_by_its_key_reads_the_stored_rows_once(con, tmp_path):
    """Without a tie across the k-th neighbour (continuous coordinates), a key lookup on the
    view reads the stored rows in one pass: the second pass, for rows with such a tie, stops
    after its first vector when no row has one (the plan's row counts, not its timing)."""
    n = 20_000
    rng = np.random.default_rng(3)
    train = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "a": pa.array(rng.normal(size=n)),
            "b": pa.array(rng.normal(size=n)),
            "y": pa.array([f"c{v}" for v in rng.integers(0, 2, n)]),
        }
    )
    con.register("arrow_wide", train)
    con.execute("CREATE TABLE wide AS SELECT * FROM arrow_wide")
    model = KNearestNeighbors(k=5).fit(con, "wide", "y", keys=["id"], name="knn_wide")
    model.create_view(con, "wide_scores", "wide", keys=["id"])
    profile = tmp_path / "profile.json"
    con.execute("PRAGMA enable_profiling = 'json'")
    con.execute(f"PRAGMA profiling_output = '{profile}'")
    try:
        row = con.sql("SELECT * FROM wide_scores WHERE id = 1234").fetchall()
    finally:
        con.execute("PRAGMA disable_profiling")
    assert len(row) == 1
    nodes = [op for root in json.loads(profile.read_text())["operator"] for op in operators(root)]
    stored = [
        op["rows_scanned"]
        for op in nodes
        if op["name"] == "SEQ_SCAN" and "_neighbours" in op["extra_info"]["Table"]
    ]
    assert stored and n <= sum(stored) <= n + 2048, stored


def test_an_export_for_another_dialect_leaves_a_concurrent_prediction_its_engines_search(
    con, monkeypatch
):
    """The dialect SQL is exported to belongs to that call (models/scoring/context.py): while
    one thread exports a model's SQL for PostgreSQL (the portable window search), another
    thread scoring with the same model object on DuckDB still gets DuckDB's own search."""
    con.register("arrow_rows", rows(60, 5))
    con.execute("CREATE TABLE knn_rows AS SELECT * FROM arrow_rows")
    model = KNearestNeighbors(k=3).fit(con, "knn_rows", "y", keys=["id"], name="knn_shared")
    exporting, scored = threading.Event(), threading.Event()
    searches: list[str] = []
    chosen = k_nearest_neighbors.search_for

    def search_for(warehouse):
        search = chosen(warehouse)
        searches.append(type(search).__name__)
        if len(searches) == 1:  # the export's: hold it until the other thread has scored
            exporting.set()
            assert scored.wait(30)
        return search

    monkeypatch.setattr(k_nearest_neighbors, "search_for", search_for)
    exported: list[str] = []
    exporter = threading.Thread(
        target=lambda: exported.append(model.sql(con.cursor(), "knn_rows", dialect="postgres"))
    )
    exporter.start()
    try:
        assert exporting.wait(30)
        model.predict_proba(con.cursor(), "knn_rows")
    finally:
        scored.set()
        exporter.join(30)
    assert searches == ["WindowSearch", "BoundedSearch"] and exported
