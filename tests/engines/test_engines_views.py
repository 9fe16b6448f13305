"""Prediction views that a user's own view reads, on PostgreSQL: a re-fit or an update that adds
a class redefines the view in place (CREATE OR REPLACE VIEW, the old columns first, the new
class's column after them) and the user's view keeps working; a drop, or a change that would
remove a column it may read, is a typed error naming the user's view before anything changes.
On DuckDB no view keeps another from being dropped or redefined: the same calls just work."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.errors import DependentObjectError

pytestmark = pytest.mark.engines


def labelled(labels: tuple[str, ...], n: int, seed: int) -> pa.Table:
    """Rows whose colour leans to the label, every colour with every label at least once."""
    rng = np.random.default_rng(seed)
    colours = ("red", "green", "blue")
    label = list(rng.choice(labels, n)) + [x for x in labels for _ in colours]
    colour = [colours[(labels.index(x) + int(rng.integers(0, 2))) % 3] for x in label[:n]]
    colour += [c for _ in labels for c in colours]
    return pa.table({"colour": colour, "label": label})


@pytest.fixture
def pg(postgres_conninfo) -> Iterator:
    """A PostgreSQL connection in a fresh database (its own wml schema and catalog)."""
    import psycopg

    database = f"views_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(postgres_conninfo, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {database}")
    conninfo = psycopg.conninfo.make_conninfo(postgres_conninfo, dbname=database)
    with psycopg.connect(conninfo, autocommit=True) as connection:
        connection.execute(
            "CREATE TABLE scored AS SELECT * FROM (VALUES (1, 'red'), (2, 'green'), "
            "(3, 'blue')) t(id, colour)"
        )
        yield connection


def rows(pg, sql: str) -> list[tuple]:
    return pg.execute(sql).fetchall()


def objects(pg) -> list[tuple]:
    return rows(
        pg,
        "SELECT n.nspname, c.relname, c.relkind FROM pg_class c JOIN pg_namespace n "
        "ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'v') AND n.nspname "
        "IN ('public', 'wml') ORDER BY 1, 2",
    )


def test_a_users_view_over_a_prediction_view_survives_refits_and_updates(pg):
    model = wml.NaiveBayes().fit(pg, labelled(("n", "y"), 60, 1), "label", name="m")
    model.create_view(pg, "public.scores", "public.scored", keys=["id"])
    pg.execute("CREATE VIEW mine AS SELECT id, p_y, prediction FROM scores")
    wml.NaiveBayes(alpha=2.0).fit(pg, labelled(("n", "y"), 60, 2), "label", name="m")
    model = wml.load(pg, "m")
    want = model.predict_proba(pg, "public.scored")["p_y"].to_pylist()
    assert [r[1] for r in rows(pg, "SELECT * FROM mine ORDER BY id")] == pytest.approx(want)
    model.update(pg, labelled(("n", "y", "z"), 60, 3), batch_id="b1")
    columns = [d.name for d in pg.execute("SELECT * FROM scores LIMIT 0").description]
    assert columns == ["id", "p_n", "p_y", "prediction", "p_z"]  # the new class after the rest
    want = model.predict_proba(pg, "public.scored")
    got = rows(pg, "SELECT p_y, prediction FROM mine ORDER BY id")
    assert [r[0] for r in got] == pytest.approx(want["p_y"].to_pylist(), abs=1e-12)
    predicted = model.predict(pg, "public.scored", keys=["id"])["prediction"].to_pylist()
    assert [r[1] for r in got] == predicted


def test_a_drop_or_a_lost_column_with_a_users_view_is_refused_naming_it(pg):
    model = wml.NaiveBayes().fit(pg, labelled(("a", "b", "c"), 60, 1), "label", name="m")
    model.create_view(pg, "public.scores", "public.scored", keys=["id"])
    pg.execute("CREATE VIEW mine AS SELECT id, prediction FROM scores")
    before, catalog = objects(pg), rows(pg, "SELECT * FROM wml.models")
    for call in (lambda: wml.drop(pg, "m"), lambda: wml.drop_view(pg, "public.scores")):
        with pytest.raises(DependentObjectError, match=r"public\.scores .*public\.mine"):
            call()
        assert objects(pg) == before
    assert rows(pg, "SELECT * FROM wml.models") == catalog
    pg.execute("DROP VIEW mine")
    wml.drop(pg, "m")  # the way out: without the user's view, the drop goes through


def test_a_refit_that_would_retype_a_column_a_users_view_reads_is_refused(pg):
    """Labels '0', '1' as text, then the same labels as integers: the prediction column would
    change type, which PostgreSQL cannot do under a view that reads it."""
    text = labelled(("0", "1"), 60, 1)
    model = wml.NaiveBayes().fit(pg, text, "label", name="m")
    model.create_view(pg, "public.scores", "public.scored", keys=["id"])
    pg.execute("CREATE VIEW mine AS SELECT id, prediction FROM scores")
    before, catalog = objects(pg), rows(pg, "SELECT * FROM wml.models")
    numbers = text.set_column(1, "label", pa.array([int(x) for x in text["label"].to_pylist()]))
    with pytest.raises(DependentObjectError, match=r"public\.scores .*public\.mine.*prediction"):
        wml.NaiveBayes().fit(pg, numbers, "label", name="m")
    assert objects(pg) == before and rows(pg, "SELECT * FROM wml.models") == catalog
    assert rows(pg, "SELECT count(*) FROM mine") == [(3,)]


def test_on_duckdb_no_view_blocks_a_drop(con):
    con.execute("CREATE TABLE scored AS SELECT * FROM (VALUES (1, 'red')) t(id, colour)")
    model = wml.NaiveBayes().fit(con, labelled(("a", "b"), 60, 1), "label", name="m")
    model.create_view(con, "scores", "scored", keys=["id"])
    con.execute("CREATE VIEW mine AS SELECT id, p_a FROM scores")
    model.update(con, labelled(("a", "b", "c"), 60, 2), batch_id="b1")
    assert con.sql("SELECT * FROM scores").columns == ["id", "p_a", "p_b", "prediction", "p_c"]
    assert con.sql("SELECT count(*) FROM mine").fetchall() == [(1,)]
    wml.drop(con, "m")
    with pytest.raises(Exception, match="scores"):
        con.sql("SELECT * FROM mine").fetchall()
