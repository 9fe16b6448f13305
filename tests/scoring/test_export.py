"""Exported scoring SQL is self-contained (warehouse_ml/models/scoring/export.py): run on a database
that holds only the source table, it gives the model's own predictions. The same on PostgreSQL and
Spark is in tests/engines/test_engines.py; other dialects, transpiled back, in
tests/sqlgen/test_dialects.py."""

from __future__ import annotations

import datetime as dt

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sqlglot
from kinds_under_test import KIND_CLASSES
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.models.keyed_terms import literal_terms

N = 240


def training(seed: int = 3) -> pa.Table:
    """Text, integer codes (looked up), a numeric column, a timestamp with a time zone, an
    integer-valued decimal; NULLs in each."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, N)

    def maybe(values: list) -> list:
        return [None if rng.random() < 0.06 else v for v in values]

    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    return pa.table(
        {
            "id": pa.array(np.arange(N) * 5 + 2, pa.int64()),
            "colour": pa.array(maybe([f"c{(v + rng.integers(0, 2)) % 4}" for v in y])),
            "code": pa.array(maybe([int((2 * v + rng.integers(0, 3)) % 5) for v in y]), pa.int32()),
            "weight": pa.array(maybe([float(v * 1.7 + rng.normal()) for v in y]), pa.float64()),
            "seen_at": pa.array(
                maybe([start + dt.timedelta(days=int(v + rng.integers(0, 2))) for v in y]),
                pa.timestamp("us", tz="UTC"),
            ),
            "grade": pa.array(maybe([int(v % 2) for v in y]), pa.decimal128(18, 0)),
            "label": pa.array([["high", "low", "mid"][v] for v in y]),
        }
    )


def scoring() -> pa.Table:
    """The training rows plus rows with unseen values."""
    data = training(seed=9)
    unseen = data.slice(0, 3).to_pylist()
    for row in unseen:
        row.update(colour="never", code=4, weight=50.0)
    return pa.concat_tables([data, pa.Table.from_pylist(unseen, schema=data.schema)])


def elsewhere(table: pa.Table, name: str = "t") -> duckdb.DuckDBPyConnection:
    """A database holding only ``table`` as ``name``."""
    con = duckdb.connect()
    con.register("rows", table)
    con.execute(f'CREATE TABLE "{name}" AS SELECT * FROM rows')
    con.unregister("rows")
    return con


def assert_same_predictions(got: pa.Table, want: pa.Table) -> None:
    """Row for row, in the order of every column (scoring() repeats three ids)."""
    order = [(name, "ascending") for name in want.column_names]
    got, want = got.sort_by(order), want.sort_by(order)
    assert got.column_names == want.column_names
    for name in got.column_names:
        if name.startswith("p_"):
            assert got[name].to_pylist() == pytest.approx(want[name].to_pylist(), abs=1e-9)
        else:
            assert got[name].to_pylist() == want[name].to_pylist()


@pytest.fixture
def trained(con):
    con.register("rows", training())
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    con.register("new_rows", scoring())
    con.execute("CREATE TABLE t_new AS SELECT * FROM new_rows")
    return con


@pytest.mark.parametrize("kind", KIND_CLASSES)
def test_the_export_runs_where_only_the_source_table_is(trained, kind):
    model = kind().fit(trained, "t", "label", keys=["id"])
    sql = model.sql(trained, "t_new", keys=["id"])
    tree = sqlglot.parse_one(sql, read="duckdb")
    ctes = {cte.alias for cte in tree.find_all(exp.CTE)}
    assert {t.name for t in tree.find_all(exp.Table)} - ctes == {"t_new"}
    assert not [t for t in tree.find_all(exp.Table) if t.db.lower() == "wml"]
    got = elsewhere(scoring(), "t_new").sql(sql).to_arrow_table()
    assert_same_predictions(got, model.score_rows(trained, "t_new", keys=["id"]))


def test_a_model_trained_on_a_file_needs_the_table_name_and_gets_the_types_from_itself(
    con, tmp_path
):
    path = tmp_path / "training.parquet"
    pq.write_table(training(), path)
    model = wml.TAN().fit(con, str(path), "label", keys=["id"])
    with pytest.raises(wml.ParameterError, match=r"trained from .*training\.parquet.*source="):
        model.sql(con)
    with pytest.raises(wml.ParameterError, match="expected its name"):
        model.sql(con, str(path))
    sql = model.sql(con, "analytics.scored", keys=["id"], dialect="duckdb")  # not in this db
    target = duckdb.connect()
    target.execute("CREATE SCHEMA analytics")
    target.register("rows", scoring())
    target.execute("CREATE TABLE analytics.scored AS SELECT * FROM rows")
    got = target.sql(sql).to_arrow_table()
    assert_same_predictions(got, model.score_rows(con, scoring(), keys=["id"]))


def test_the_default_source_is_the_training_table(trained):
    model = wml.NaiveBayes().fit(trained, "t", "label", keys=["id"])
    sql = model.sql(trained, keys=["id"])
    got = elsewhere(training()).sql(sql).to_arrow_table()
    assert_same_predictions(got, model.score_rows(trained, "t", keys=["id"]))


def test_a_wide_model_scored_by_literal_terms_exports_too(con, monkeypatch):
    monkeypatch.setattr(literal_terms, "MAX_JOINED_ATTRIBUTES", 2)
    data = training()
    model = wml.NaiveBayes().fit(con, data, "label", keys=["id"], name="wide")
    sql = model.sql(con, "t", keys=["id"])
    assert "CASE" in sql and "wml_param_categorical" not in sql  # the literal form
    got = elsewhere(scoring()).sql(sql).to_arrow_table()
    assert_same_predictions(got, model.score_rows(con, scoring(), keys=["id"]))
