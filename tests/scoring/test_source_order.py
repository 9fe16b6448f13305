"""Results fetched in source order (``predict_proba``, ``predict_log_proba``, and ``predict``,
``score_rows`` and ``explain`` without keys, one row per source row) hold only where the engine
returns a scan's rows in order. DuckDB does so unless the connection was told otherwise
(``SET preserve_insertion_order = false``, a setting of the whole database): then a 400,000-row
``predict_proba`` came back with 399,686 rows' probabilities paired with other rows, silently.
Such a call is now a ConnectionStateError naming the setting, before anything runs; a call
with keys, a view or a table works as before."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest

import warehouse_ml as wml

ROWS = 400_000


@pytest.fixture
def unordered():
    """A connection of four threads holding ``t`` (ROWS rows) and a Naive Bayes ``m`` fitted on
    it, with insertion order switched off after the fit."""
    con = duckdb.connect()
    con.execute("SET threads = 4")
    con.execute(
        "CREATE TABLE t AS SELECT i AS id, CAST(i * 7 % 13 AS VARCHAR) AS a, "
        "CAST(i % 5 AS VARCHAR) AS b, CASE WHEN i * 7 % 13 < 6 THEN 'y' ELSE 'n' END AS label "
        f"FROM range({ROWS}) AS r(i)"
    )
    model = wml.NaiveBayes().fit(con, "t", "label", features=["a", "b"], name="m")
    expected = model.predict_proba(con, "t").column("p_y").to_numpy()
    con.execute("SET preserve_insertion_order = false")
    yield con, model, expected
    con.close()


@pytest.mark.parametrize(
    "call",
    [
        lambda model, con: model.predict_proba(con, "t"),
        lambda model, con: model.predict_log_proba(con, "t"),
        lambda model, con: model.predict(con, "t"),
        lambda model, con: model.score_rows(con, "t", keys=[]),
        lambda model, con: model.explain(con, "t"),
    ],
    ids=["predict_proba", "predict_log_proba", "predict", "score_rows", "explain"],
)
def test_a_result_in_source_order_is_refused_where_the_engine_keeps_none(unordered, call):
    con, model, _ = unordered
    with pytest.raises(wml.ConnectionStateError, match="preserve_insertion_order"):
        call(model, con)
    assert con.sql("SELECT current_setting('preserve_insertion_order')").fetchall() == [(False,)]


def test_keys_views_and_tables_need_no_order(unordered):
    con, model, expected = unordered
    keyed = model.predict(con, "t", keys=["id"]).to_pydict()
    order = np.argsort(keyed["id"])
    labels = np.array(keyed["prediction"])[order]
    assert (labels == np.where(expected > 0.5, "y", "n")).all()
    model.create_view(con, "scores", "t", keys=["id"])
    viewed = con.sql("SELECT p_y FROM scores ORDER BY id").fetchnumpy()["p_y"]
    np.testing.assert_allclose(viewed, expected, rtol=0, atol=1e-15)
