"""What a process keeps between calls never outlives what it stands for: a model re-fitted or
dropped by another connection is noticed at the next call (its old object refused, the new
version's probabilities served), and a statement text rendered once (engines/base.py,
``Warehouse._rendered``) is exactly the text its own values render to, on every connection.
"""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.engines import DuckDBWarehouse
from warehouse_ml.errors import ModelNotFoundError, StaleModelError
from warehouse_ml.sqlgen import templates


def _rows(con, table: str, flip: bool) -> None:
    """60 rows of two attributes and a binary class; ``flip`` swaps which values go with which
    class, so a model of the flipped rows gives other probabilities on the same rows."""
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 60)
    label = 1 - y if flip else y
    con.register(
        "rows_arrow",
        pa.table(
            {
                "id": np.arange(60),
                "a": [f"a{(v + rng.integers(0, 2)) % 3}" for v in label],
                "b": [f"b{v}" if rng.random() < 0.8 else "b2" for v in label],
                "y": ["yes" if v else "no" for v in y],
            }
        ),
    )
    con.execute(f"CREATE TABLE {table} AS SELECT * FROM rows_arrow")
    con.unregister("rows_arrow")


def _probabilities(table: pa.Table) -> np.ndarray:
    return np.column_stack([table.column(n).to_numpy() for n in table.column_names])


@pytest.mark.parametrize("other", ["cursor", "connection"])
def test_a_model_refitted_or_dropped_elsewhere_is_noticed_by_the_next_call(tmp_path, other):
    con = duckdb.connect(str(tmp_path / "db.duckdb"))
    _rows(con, "old_rows", flip=False)
    _rows(con, "new_rows", flip=True)
    model = wml.NaiveBayes().fit(con, "old_rows", "y", keys=["id"], name="m")
    loaded = wml.load(con, "m")
    before = _probabilities(loaded.predict_proba(con, "old_rows"))
    _probabilities(model.predict_proba(con, "old_rows"))  # both objects scored: cached

    elsewhere = con.cursor() if other == "cursor" else duckdb.connect(str(tmp_path / "db.duckdb"))
    wml.NaiveBayes().fit(elsewhere, "new_rows", "y", keys=["id"], name="m", replace=True)
    # the new version's probabilities, from a fit that never touched this database
    scratch = duckdb.connect()
    scratch.register("new_arrow", con.table("new_rows").to_arrow_table())
    scratch.execute("CREATE TABLE new_rows AS SELECT * FROM new_arrow")
    wanted = wml.NaiveBayes().fit(scratch, "new_rows", "y", keys=["id"], name="m")
    expected = _probabilities(wanted.predict_proba(scratch, "new_rows"))
    scratch.close()

    reloaded = wml.load(con, "m")
    got = _probabilities(reloaded.predict_proba(con, "new_rows"))
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    on_old_rows = _probabilities(reloaded.predict_proba(con, "old_rows"))
    assert np.abs(on_old_rows - before).max() > 0.1  # another model: not the cached one
    for stale in (model, loaded):
        with pytest.raises(StaleModelError, match=r"re-fitted.*warehouse_ml\.load\(con, 'm'\)"):
            stale.predict_proba(con, "old_rows")

    wml.drop(elsewhere, "m")
    with pytest.raises(StaleModelError, match="has been dropped"):
        reloaded.predict_proba(con, "new_rows")
    with pytest.raises(ModelNotFoundError, match="no model 'm'"):
        wml.load(con, "m")
    elsewhere.close()
    con.close()


def test_a_model_whose_catalog_was_removed_by_hand_is_dropped(con):
    """The check every call makes reads the catalog at once; a catalog removed by hand (the
    whole schema ``wml``) is a model that has been dropped, as before the first fit."""
    _rows(con, "old_rows", flip=False)
    model = wml.NaiveBayes().fit(con, "old_rows", "y", keys=["id"], name="m")
    model.predict_proba(con, "old_rows")
    con.execute("DROP SCHEMA wml CASCADE")
    with pytest.raises(StaleModelError, match="has been dropped"):
        model.predict_proba(con, "old_rows")
    assert con.sql("SELECT 42").fetchall() == [(42,)]  # the connection is left usable


def test_a_library_query_reads_the_catalog_of_each_connection_it_runs_on(con):
    """The catalog look-up's text is kept per process; a connection with a database named
    ``wml`` attached names the library's tables with its own database (DuckDB's
    ``DuckDBWarehouse._prepare``) and must not be served the other connection's text."""
    plain = duckdb.connect()
    for connection in (plain, con):
        if connection is con:
            con.execute("ATTACH ':memory:' AS wml")
        _rows(connection, "old_rows", flip=False)
        model = wml.NaiveBayes().fit(connection, "old_rows", "y", keys=["id"], name="m")
        assert model.predict_proba(connection, "old_rows").num_rows == 60
        assert wml.load(connection, "m").predict_proba(connection, "old_rows").num_rows == 60
    plain.close()


@pytest.mark.parametrize(
    ("values", "sign"),
    [
        ((1.0, 0.0, 1.0, 0.0), 1.0),
        ((1.0, -0.0, 1.0, 0.0), -1.0),  # equal to 0.0 as a number, another literal
        ((1, 2, 1, 0), 1.0),
        ((1.0, 2.0, 1.0, 0.0), 1.0),  # equal to the integers, another literal
    ],
)
def test_a_text_rendered_once_is_the_text_of_its_own_values(con, values, sign):
    warehouse = DuckDBWarehouse(con)
    weight, p_k, delta, p_l = values
    bindings = {"weight": weight, "p_k": p_k, "delta": delta, "p_l": p_l}
    for _ in range(2):  # rendered, then served from the texts kept
        got = warehouse.fetch("newton_hessian_weight", **bindings)
        assert warehouse.log[-1] == templates.render("newton_hessian_weight", **bindings)
        value = got.column(0)[0].as_py()
        assert value == weight * p_k * (delta - p_l)
        assert math.copysign(1.0, value) == sign
