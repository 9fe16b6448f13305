"""The guest contract under a search path (docs/RELIABILITY.md, "guest contract"): a new object
under an unqualified name is refused when the name also reaches a user's object in another
schema of the session's search path (the new object would hide it from every query of that
name, or be hidden by it), and the library's views name everything they read with its schema.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from guest_checks import objects, user_checksums

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.errors import NameConflictError

N = 300


def _data() -> pa.Table:
    """Rows whose class ``f`` and ``code`` tell; ``code`` has 40 values, too many to be scored
    from literals: the scoring query joins the model's tables."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, N)
    return pa.table(
        {
            "id": np.arange(N),
            "f": [f"f{(v + rng.integers(0, 2)) % 3}" for v in y],
            "code": [f"c{v * 20 + rng.integers(0, 20)}" for v in y],
            "x": rng.normal(y, 1.0),
            "cls": np.where(y == 1, "yes", "no"),
        }
    )


CREATING: dict[str, Callable[[Any, Any, str], Any]] = {
    "create_view": lambda con, m, name: m.create_view(con, name, "data", keys=["id"]),
    "create_table": lambda con, m, name: m.create_table(con, name, "data", keys=["id"]),
    "create_explanation_view": lambda con, m, name: m.create_explanation_view(
        con, name, "data", keys=["id"]
    ),
    "create_drift_view": lambda con, m, name: m.create_drift_view(con, name, "data"),
    "holdout_split": lambda con, m, name: wml.holdout_split(
        con, "data", test_fraction=0.3, key="id", table=name
    ),
    "assign_folds_view": lambda con, m, name: wml.assign_folds(
        con, "data", folds=3, key="id", table=name, view=True
    ),
    "resample": lambda con, m, name: wml.resample(con, "data", "cls", key="id", table=name),
    "create_measure_view": lambda con, m, name: wml.create_measure_view(
        con, name, "accuracy", "preds", target="cls"
    ),
}
"""Every call that creates an object under a name the user chose."""


@pytest.fixture
def searched() -> Iterator[duckdb.DuckDBPyConnection]:
    """Schemas ``a`` and ``b`` on the search path 'a,b' (new objects go to ``a``); the data
    and a user's table ``b.scores`` in ``b``."""
    con = duckdb.connect()
    con.execute("CREATE SCHEMA a; CREATE SCHEMA b")
    con.register("data_arrow", _data())
    con.execute("CREATE TABLE b.data AS SELECT * FROM data_arrow")
    con.unregister("data_arrow")
    con.execute("CREATE TABLE b.scores AS SELECT 'precious' AS note")
    con.execute("SET search_path = 'a,b'")
    yield con
    con.close()


@pytest.mark.parametrize("call", sorted(CREATING))
def test_a_name_reaching_a_users_object_elsewhere_on_the_search_path_is_refused(searched, call):
    con = searched
    model = wml.TAN().fit(con, "data", "cls", keys=["id"], name="m")
    model.create_view(con, "preds", "data", keys=["id", "cls"])
    before = objects(con), user_checksums(con)
    with pytest.raises(NameConflictError, match=r"b\.scores"):
        CREATING[call](con, model, "scores")
    assert (objects(con), user_checksums(con)) == before
    assert con.sql("SELECT * FROM scores").fetchall() == [("precious",)]
    CREATING[call](con, model, "fresh")  # a name the path does not reach works


def test_a_name_reaching_a_users_object_through_set_schema_is_refused(searched):
    con = searched
    con.execute("RESET search_path")
    con.execute("CREATE TABLE main.scores AS SELECT 'mine too' AS note")
    con.execute("SET schema = 'a'")  # path: temp, a, main
    model = wml.NaiveBayes().fit(con, "b.data", "cls", keys=["id"], name="m")
    with pytest.raises(NameConflictError, match=r"main\.scores"):
        model.create_view(con, "scores", "b.data", keys=["id"])
    con.execute("CREATE TEMP TABLE shadowed AS SELECT 1 AS x")
    with pytest.raises(NameConflictError, match="shadowed"):
        model.create_view(con, "shadowed", "b.data", keys=["id"])
    assert str(model.create_view(con, "a.scores", "b.data", keys=["id"])) == "a.scores"


def test_the_librarys_own_views_elsewhere_on_the_path_are_no_conflict(searched):
    con = searched
    model = wml.NaiveBayes().fit(con, "data", "cls", keys=["id"], name="m")
    model.create_view(con, "b.preds", "data", keys=["id"])
    assert str(model.create_view(con, "preds", "data", keys=["id"])) == "a.preds"


def test_view_sql_names_the_library_tables_and_the_source_with_their_schemas(searched):
    con = searched
    model = wml.TAN().fit(con, "data", "cls", keys=["id"], name="m")
    for create in ("create_view", "create_explanation_view", "create_drift_view"):
        CREATING[create](con, model, f"v_{create}")
    views = con.sql("SELECT view_name, sql FROM duckdb_views() WHERE schema_name = 'a'").fetchall()
    assert len(views) == 3
    for name, sql in views:
        assert 'b."data"' in sql or "b.data" in sql, name
        assert "FROM data" not in sql and 'FROM "data"' not in sql, name
    lookup = con.sql("SELECT sql FROM duckdb_views() WHERE view_name = 'v_create_view'")
    assert "wml." in lookup.fetchall()[0][0]  # the TAN lookup block, read with its schema
    rows = con.sql("SELECT * FROM a.v_create_view ORDER BY id").fetchall()
    con.execute("CREATE SCHEMA c; CREATE TABLE c.data AS SELECT * FROM b.data LIMIT 0")
    con.execute("SET search_path = 'c,b'")  # an unqualified "data" would now be c's, empty
    assert len(rows) == N
    assert con.sql("SELECT * FROM a.v_create_view ORDER BY id").fetchall() == rows


# -- PostgreSQL -----------------------------------------------------------------------------
@pytest.fixture
def postgres(postgres_conninfo) -> Iterator[Any]:
    """A fresh database on the session's PostgreSQL server, with schemas ``a`` and ``b``, the
    data and a user's table ``b.scores`` in ``b``, and the search path ``a, b``."""
    import psycopg

    database = f"s{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_conninfo, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {database}")
    conninfo = postgres_conninfo.replace("dbname=postgres", f"dbname={database}")
    with psycopg.connect(conninfo, autocommit=True) as con:
        con.execute("CREATE SCHEMA a; CREATE SCHEMA b")
        data = _data()
        with con.cursor() as cursor:
            cursor.execute(
                "CREATE TABLE b.data (id bigint, f text, code text, x double precision, cls text)"
            )
            cursor.executemany(
                "INSERT INTO b.data VALUES (%s, %s, %s, %s, %s)",
                list(zip(*(data.column(c).to_pylist() for c in data.column_names), strict=True)),
            )
        con.execute("CREATE TABLE b.scores AS SELECT 'precious' AS note")
        con.execute("SET search_path TO a, b")
        yield con


@pytest.mark.engines
def test_on_postgres_a_name_reaching_a_users_object_on_the_search_path_is_refused(postgres):
    con = postgres
    model = wml.TAN().fit(con, "data", "cls", keys=["id"], name="m")
    model.create_view(con, "preds", "data", keys=["id", "cls"])
    for call in sorted(CREATING):
        with pytest.raises(NameConflictError, match=r"b\.scores"):
            CREATING[call](con, model, "scores")
        assert con.execute("SELECT * FROM scores").fetchall() == [("precious",)]
    ran: list[str] = []
    made = model.create_view(connect(con, on_sql=ran.append), "fresh", "data", keys=["id"])
    assert str(made) == "a.fresh"
    created = next(sql for sql in ran if sql.startswith("CREATE VIEW"))
    assert '"b"."data"' in created and '"wml".' in created
    assert con.execute("SELECT count(*) FROM fresh").fetchone() == (N,)
    con.execute("SET search_path TO a")
    assert con.execute("SELECT count(*) FROM fresh").fetchone() == (N,)


def test_a_users_view_over_a_library_view_keeps_working_across_refits(searched):
    """DuckDB binds a view's names when it is read, so a user's view over a prediction view
    reads the rebuilt view after a re-fit (the re-fit replaces the view in its transaction)."""
    con = searched
    model = wml.NaiveBayes().fit(con, "data", "cls", keys=["id"], name="m")
    model.create_view(con, "preds", "data", keys=["id"])
    model.create_drift_view(con, "drifts", "data")
    con.execute("CREATE VIEW b.report AS SELECT id, prediction FROM a.preds WHERE id < 10")
    con.execute("CREATE VIEW b.drift_report AS SELECT count(*) AS n FROM a.drifts")
    before = con.sql("SELECT * FROM report ORDER BY id").fetchall()
    refit = wml.TAN().fit(con, "data", "cls", keys=["id"], name="m", replace=True)
    after = con.sql("SELECT * FROM report ORDER BY id").fetchall()
    expected = refit.predict(con, "data")
    assert len(before) == len(after) == 10
    assert [p for _, p in after] == expected.column("prediction").to_pylist()[:10]
    assert con.sql("SELECT n FROM drift_report").fetchall()[0][0] > 0
