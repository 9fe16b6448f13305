"""Every call that takes a source takes data frames, DuckDB relations and SQL queries, and reads
them as it reads the same rows stored as a table; a view is made only over a source that
outlives the process (a query is one: its text is stored)."""

from __future__ import annotations

import importlib.util

import duckdb
import pandas as pd
import pyarrow as pa
import pytest

import warehouse_ml as wml

ROWS = pa.table(
    {
        "id": list(range(60)),
        "colour": [["red", "green", "blue", None][i % 4] for i in range(60)],
        "size": [float((i * 7) % 11) for i in range(60)],
        "cls": ["yes" if (i * 5) % 3 else "no" for i in range(60)],
    }
)


@pytest.fixture
def shop(con) -> duckdb.DuckDBPyConnection:
    """``con`` with the rows as table ``items``."""
    con.register("rows", ROWS)
    con.execute("CREATE TABLE items AS SELECT * FROM rows")
    con.unregister("rows")
    return con


def frames(con: duckdb.DuckDBPyConnection) -> dict[str, object]:
    """The rows of table ``items`` as each kind of source, with how the catalog describes it."""
    sources = {
        "a pandas DataFrame": ROWS.to_pandas(),
        "a DuckDB relation": con.sql("SELECT * FROM items"),
        "query 'SELECT * FROM items ORDER BY id'": wml.query("SELECT * FROM items ORDER BY id"),
    }
    if importlib.util.find_spec("polars") is not None:  # in the test extra
        import polars

        sources["a polars DataFrame"] = polars.from_arrow(ROWS)
    return sources


class Frame:
    """Any data frame that makes itself an Arrow table, as polars' does."""

    def __init__(self, table: pa.Table) -> None:
        self.table = table

    def to_arrow(self) -> pa.Table:
        return self.table


def test_any_frame_with_to_arrow_is_a_source(shop):
    reference = wml.NaiveBayes().fit(shop, "items", "cls", keys=["id"])
    model = wml.NaiveBayes().fit(shop, Frame(ROWS), "cls", keys=["id"], name="m")
    assert model.record.source == "a test_sources Frame"
    assert model.predict_proba(shop, Frame(ROWS)).equals(reference.predict_proba(shop, "items"))


def test_frames_relations_and_queries_give_the_tables_results(shop):
    con = shop
    reference = wml.TAN().fit(con, "items", "cls", keys=["id"], name="reference")
    expected = reference.predict_proba(con, "items")
    folds = wml.cross_validate(con, "items", "cls", wml.NaiveBayes(), folds=3, key="id")
    ranked = wml.rank_attributes(con, "items", "cls", keys=["id"])
    resampled = wml.resample(con, "items", "cls", key="id").table
    sample = con.sql(f"SELECT * FROM {resampled} ORDER BY id").fetchall()
    for described, source in frames(con).items():
        model = wml.TAN().fit(con, source, "cls", keys=["id"], name="m", replace=True)
        assert model.record.source == described
        assert model.predict_proba(con, source).equals(expected), described
        assert reference.predict_proba(con, source).equals(expected), described
        assert model.drift(con, source).equals(reference.drift(con, "items")), described
        table = model.create_table(con, "scored", source, keys=["id"])
        assert (
            con.sql(f"SELECT * FROM {table} ORDER BY id")
            .arrow()
            .read_all()
            .equals(reference.score_rows(con, "items", keys=["id"]))
        )
        con.execute("DROP TABLE scored")
        evaluation = wml.cross_validate(con, source, "cls", wml.NaiveBayes(), folds=3, key="id")
        assert evaluation.to_arrow().equals(folds.to_arrow()), described
        held_out = wml.evaluate(con, reference, source, keys=["id"])
        assert (
            held_out.accuracy().correct == wml.evaluate(con, reference, "items").accuracy().correct
        )
        assert wml.rank_attributes(con, source, "cls", keys=["id"]).equals(ranked)
        again = wml.resample(con, source, "cls", key="id").table
        assert con.sql(f"SELECT * FROM {again} ORDER BY id").fetchall() == sample, described


def test_a_relation_of_another_database_is_read_as_arrow(shop):
    other = duckdb.connect()
    other.register("rows", ROWS)
    elsewhere = other.sql("SELECT * FROM rows WHERE id < 30")
    model = wml.NaiveBayes().fit(shop, "items", "cls", keys=["id"])
    expected = model.predict_proba(shop, wml.query("SELECT * FROM items WHERE id < 30"))
    assert model.predict_proba(shop, elsewhere).equals(expected)
    other.close()


def test_a_view_over_a_frame_or_relation_is_refused(shop):
    model = wml.NaiveBayes().fit(shop, "items", "cls", keys=["id"], name="m")
    for described, source in frames(shop).items():
        if described.startswith("query"):
            continue
        with pytest.raises(wml.ParameterError, match=f"needs a durable source .*got {described}"):
            model.create_view(shop, "scores", source, keys=["id"])
        with pytest.raises(wml.ParameterError, match="needs a durable source"):
            wml.holdout_split(shop, source, test_fraction=0.3, key="id", view=True)
    assert shop.sql("SELECT * FROM duckdb_views() WHERE view_name = 'scores'").fetchall() == []


def test_a_view_over_a_query_holds_its_text_and_is_rebuilt_with_the_model(tmp_path):
    path = str(tmp_path / "w.duckdb")
    con = duckdb.connect(path)
    con.register("rows", ROWS)
    con.execute("CREATE TABLE items AS SELECT * FROM rows")
    recent = wml.query("SELECT * FROM items WHERE id >= 40")
    model = wml.NaiveBayes().fit(con, "items", "cls", keys=["id"], name="m")
    model.create_view(con, "recent_scores", recent, keys=["id"])
    refit = wml.NaiveBayes(alpha=2).fit(con, "items", "cls", keys=["id"], name="m")
    con.close()
    con = duckdb.connect(path)  # another process: the view is SQL only
    rows = con.sql("SELECT * FROM recent_scores ORDER BY id").arrow().read_all()
    assert rows.column("id").to_pylist() == list(range(40, 60))
    want = refit.score_rows(con, "items", keys=["id"]).filter(pa.compute.field("id") >= 40)
    assert rows.equals(want)
    con.close()


@pytest.mark.parametrize(
    "sql, found",
    [
        ("DELETE FROM items", "got DELETE"),
        ("SELECT 1; SELECT 2", "got 2 statements (SELECT, SELECT)"),
        ("CREATE TABLE x AS SELECT 1 AS a", "got CREATE"),
        ("WITH d AS (SELECT 1 AS a) INSERT INTO items SELECT * FROM d", "got INSERT"),
        ("DROP TABLE items", "got DROP"),
        ("", "got 0 statements"),
    ],
)
def test_a_query_that_is_not_one_select_is_refused(sql, found):
    with pytest.raises(wml.SourceError, match="expected one SELECT") as error:
        wml.query(sql)
    assert found in str(error.value)


def test_sql_text_as_a_table_name_points_to_query(shop):
    with pytest.raises(wml.SourceError, match=r"pass wml\.query\(\.\.\.\) as the source"):
        wml.NaiveBayes().fit(shop, "SELECT * FROM items", "cls")


@pytest.mark.parametrize("name", ["strata", "expected", "counts"])
def test_a_query_reads_its_tables_whatever_the_librarys_own_names(con, name):
    """A table named like a part of the library's queries (a CTE) is read, not that part."""
    con.register("rows", ROWS)
    con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM rows')
    con.execute("CREATE TABLE items AS SELECT * FROM rows")
    source = wml.query(f'SELECT * FROM "{name}"')
    assert wml.rank_attributes(con, source, "cls", keys=["id"]).equals(
        wml.rank_attributes(con, "items", "cls", keys=["id"])
    )
    folds = wml.cross_validate(con, source, "cls", wml.TAN(), folds=3, key="id")
    assert folds.to_arrow().equals(
        wml.cross_validate(con, "items", "cls", wml.TAN(), folds=3, key="id").to_arrow()
    )


def test_pandas_index_is_not_a_column(shop):
    frame = ROWS.to_pandas().set_index("id")
    model = wml.NaiveBayes().fit(shop, frame, "cls")
    assert model.feature_names_in_ == ["colour", "size"]
    assert isinstance(frame, pd.DataFrame)


def by_id(table: pa.Table) -> pa.Table:
    return table.sort_by("id")


@pytest.mark.engines
def test_on_postgresql_queries_frames_and_relations_give_the_tables_results(postgres_conninfo):
    import psycopg

    with psycopg.connect(postgres_conninfo, autocommit=True) as pg:
        pg.execute("DROP TABLE IF EXISTS strata")  # named like a part of the library's queries
        pg.execute("CREATE TABLE strata (id bigint, colour text, size double precision, cls text)")
        with pg.cursor() as cursor:
            rows = [tuple(row.values()) for row in ROWS.to_pylist()]
            cursor.executemany("INSERT INTO strata VALUES (%s, %s, %s, %s)", rows)
        model = wml.TAN().fit(pg, "strata", "cls", keys=["id"], name="sources")
        expected = by_id(model.score_rows(pg, "strata", keys=["id"]))
        local = duckdb.connect()
        local.register("rows", ROWS)
        for source in [
            wml.query("SELECT * FROM strata WHERE id >= 0"),
            local.sql("SELECT * FROM rows"),
            ROWS.to_pandas(),
        ]:
            assert by_id(model.score_rows(pg, source, keys=["id"])).equals(expected)
        local.close()
        folds = wml.cross_validate(
            pg, wml.query("SELECT * FROM strata"), "cls", wml.TAN(), folds=3, key="id"
        )
        want = wml.cross_validate(pg, "strata", "cls", wml.TAN(), folds=3, key="id")
        assert by_id(folds.to_arrow()).equals(by_id(want.to_arrow()))
