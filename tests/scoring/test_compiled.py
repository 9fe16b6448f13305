"""A fitted model's scoring query is compiled once per process, model version, source schema
and call options (models/scoring/compiled.py), and the compiled text reads each call's own source:
the same text as a query built for that source, the same rows as a fresh build."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from kinds_under_test import KIND_CLASSES

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.engines.sources import open_source
from warehouse_ml.models.scoring import compiled, prediction
from warehouse_ml.models.scoring import query as scoring
from warehouse_ml.models.scoring.context import ScoringContext

N = 300


def table(seed: int, rows: int = N) -> pa.Table:
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y", "z"], rows)
    b = rng.choice(["p", "q"], rows)
    label = np.where((a == "x") ^ (b == "p"), "yes", "no")
    label = np.where(rng.random(rows) < 0.2, "maybe", label)
    return pa.table({"id": np.arange(rows), "a": a, "b": b, "label": label})


@pytest.fixture
def builds(monkeypatch) -> list[int]:
    """Counts the scoring queries built (models/scoring/query.py score_query calls)."""
    calls: list[int] = []
    original = scoring.score_query

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(prediction, "score_query", counted)
    return calls


@pytest.mark.parametrize("kind", KIND_CLASSES)
def test_each_call_reads_its_own_source_from_one_build(con, builds, kind):
    """Three sources of one schema (two tables, Arrow data registered under a new name each
    call) scored from one build give what a model scoring each alone gives."""
    model = kind().fit(con, table(1), "label", keys=["id"], name="m")
    con.register("t2_arrow", table(2, 120))
    con.execute("CREATE TABLE t2 AS SELECT * FROM t2_arrow")
    con.register("t3_arrow", table(3, 80))
    con.execute("CREATE TABLE t3 AS SELECT * FROM t3_arrow")
    first = {name: model.predict_proba(con, name) for name in ("t2", "t3")}
    arrow = model.predict_proba(con, table(4, 50))
    assert len(builds) == 1
    assert [first["t2"].num_rows, first["t3"].num_rows, arrow.num_rows] == [120, 80, 50]

    for source, scores in [*first.items(), (table(4, 50), arrow)]:
        compiled._COMPILED.clear()  # a fresh build for this source alone
        assert model.predict_proba(con, source).equals(scores)
    assert len(builds) == 4


def test_the_compiled_text_is_the_text_built_for_the_source(con):
    """The text a later call runs equals the text of the query built for its source."""
    statements: list[str] = []
    warehouse = connect(con, on_sql=statements.append)
    model = wml.TAN().fit(warehouse, table(1), "label", keys=["id"], name="m")
    con.register("t2_arrow", table(2, 50))
    con.execute("CREATE TABLE t2 AS SELECT * FROM t2_arrow")
    model.predict(warehouse, table(5, 10), keys=["id"])  # compiles the query
    before = len(statements)
    model.predict(warehouse, "t2", keys=["id"])
    ran = [s for s in statements[before:] if "wml_posterior" in s]
    with warehouse.session() as session, open_source(session, "t2") as source:
        built = model.scoring_query(
            ScoringContext(session, ordered=True), model.record, source,
            passthrough=[("id", "id")], prediction_name="prediction", decision=scoring.Decision(),
        )  # fmt: skip
        assert ran == [session.generate(built)]


def test_schema_options_and_version_each_have_their_own_query(con, builds):
    """Another column type, other outputs or a re-fit build a query of their own."""
    model = wml.NaiveBayes().fit(con, table(1), "label", keys=["id"], name="m")
    model.predict_proba(con, table(2))
    model.predict_proba(con, table(3))
    assert len(builds) == 1
    large = table(2).cast(
        pa.schema([("id", pa.int64()), ("a", pa.large_string()), ("b", pa.string()),
                   ("label", pa.string())])
    )  # fmt: skip
    model.predict_proba(con, large)
    assert len(builds) == 2
    model.predict(con, table(2), keys=["id"])
    model.predict_log_proba(con, table(2))
    assert len(builds) == 4
    before = model.predict_proba(con, table(2))
    refit = wml.NaiveBayes(alpha=2.0).fit(con, table(1), "label", keys=["id"], name="m")
    assert not refit.predict_proba(con, table(2)).equals(before)
    assert len(builds) == 5


def test_bad_sources_are_refused_also_after_a_build(con):
    """The checks of a source run on every call, not only when the query is built."""
    model = wml.NaiveBayes().fit(con, table(1), "label", keys=["id"], name="m")
    model.predict(con, table(2), keys=["id"])
    with pytest.raises(wml.ColumnError, match="no column 'b'"):
        model.predict(con, table(2).drop_columns(["b"]), keys=["id"])
    with pytest.raises(wml.ColumnError, match="nope"):
        model.predict(con, table(2), keys=["nope"])
    renamed = table(2).rename_columns(["id", "a", "b", "prediction"])
    with pytest.raises(wml.WarehouseMLError, match="prediction"):
        model.predict(con, renamed, keys=["prediction"])
    assert pc.all(pc.is_valid(model.predict(con, table(2))["prediction"])).as_py()
