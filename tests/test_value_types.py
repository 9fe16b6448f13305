"""Values whose type needs care when they are counted and compared (features.py): timestamps
with a time zone, whose text depends on the session's time zone.

Oracles: the numpy reference of tests/reference.py; for TAN, cross-validation and leave-one-out,
the same model fitted on the values' text in a view.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pyarrow as pa
import pytest
from reference import naive_bayes_log_joint, softmax

import warehouse_ml as wml
from warehouse_ml import naive_bayes
from warehouse_ml.loo import leave_one_out

UTC = dt.timezone.utc
INSTANTS = [
    dt.datetime(2024, 1, 1, 10, 0, tzinfo=UTC),
    dt.datetime(2024, 3, 10, 6, 30, tzinfo=UTC),  # 01:30 in New York, before the spring change
    dt.datetime(2024, 3, 10, 7, 30, 0, 500000, tzinfo=UTC),  # 03:30 EDT: no 02:30 that day
    dt.datetime(2024, 11, 3, 5, 30, tzinfo=UTC),  # 01:30 EDT ...
    dt.datetime(2024, 11, 3, 6, 30, tzinfo=UTC),  # ... and 01:30 EST: the same wall clock
]


def probabilities(table: pa.Table) -> np.ndarray:
    return np.column_stack([table.column(i).to_numpy() for i in range(table.num_columns)])


# -- timestamps with a time zone ------------------------------------------------------------
def zoned_rows(n: int = 90, seed: int = 5) -> pa.Table:
    """id, ts (timestamp with time zone, NULLs), c (string), y (three classes)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    ts = [None if rng.random() < 0.1 else INSTANTS[(v + rng.integers(0, 3)) % 5] for v in y]
    c = [f"c{(v + rng.integers(0, 2)) % 3}" for v in y]
    return pa.table(
        {
            "id": pa.array(np.arange(n), pa.int64()),
            "ts": pa.array(ts, pa.timestamp("us", tz="UTC")),
            "c": pa.array(c),
            "y": pa.array([f"k{v}" for v in y]),
        }
    )


@pytest.fixture
def zoned(con) -> pa.Table:
    """Table ``events`` (TIMESTAMPTZ ts) and view ``events_text`` (ts as its UTC text), both
    written in a UTC session."""
    con.execute("SET TimeZone = 'UTC'")
    data = zoned_rows()
    con.register("events_arrow", data)
    con.execute("CREATE TABLE events AS SELECT * FROM events_arrow")
    con.execute(
        "CREATE VIEW events_text AS SELECT id, CAST(ts AT TIME ZONE 'UTC' AS VARCHAR) AS ts, c, y "
        "FROM events"
    )
    return data


def test_timestamptz_is_scored_alike_in_every_session_time_zone(con, zoned):
    """Fitted in UTC, read in New York: predict_proba and a prediction view give the same
    probabilities (before: every stored value unseen, 0.5/0.5 flat), equal to the numpy
    reference over the instants; a fit in New York stores the same parameters."""
    nb = wml.NaiveBayes().fit(con, "events", "y", keys=["id"], name="nb_ts")
    tan = wml.TAN().fit(con, "events", "y", keys=["id"], name="tan_ts")
    assert nb.features_[0].sql_type == "timestamp[us, tz=UTC]"
    stored = {r["value"] for r in nb.parameters(con)["categorical"].to_pylist()}
    assert "2024-03-10 07:30:00.5" in stored  # the UTC wall clock, no offset
    train = {"ts": zoned["ts"].to_pylist(), "c": zoned["c"].to_pylist()}
    _, joint = naive_bayes_log_joint(
        train, zoned["y"].to_pylist(), train, alpha=1.0, prior_alpha=0.0
    )
    expected = {"nb": softmax(joint)}
    expected["tan"] = probabilities(
        wml.TAN().fit(con, "events_text", "y", keys=["id"]).predict_proba(con, "events_text")
    )
    models = {"nb": nb, "tan": tan}
    for kind, model in models.items():
        model.create_view(con, f"{kind}_scores", "events", keys=["id"])
    for zone in ("UTC", "America/New_York", "Asia/Kolkata"):
        con.execute(f"SET TimeZone = '{zone}'")
        for kind, model in models.items():
            got = probabilities(model.predict_proba(con, "events"))
            np.testing.assert_allclose(got, expected[kind], rtol=0, atol=1e-12, err_msg=zone)
            view = con.sql(
                f"SELECT p_k0, p_k1, p_k2 FROM {kind}_scores ORDER BY id"
            ).to_arrow_table()
            np.testing.assert_allclose(probabilities(view), got, rtol=0, atol=0, err_msg=zone)
    refit = wml.NaiveBayes().fit(con, "events", "y", keys=["id"], name="nb_ts_new_york")
    assert refit.parameters(con) == nb.parameters(con)


def test_timestamptz_in_cross_validation_leave_one_out_and_wide_models(con, zoned, monkeypatch):
    """Every other path that counts or compares the values (fold by fold counting, NB and TAN
    cross-validation, leave-one-out, join-free scoring of wide models) gives what the same
    model gives on the values' UTC text, in a New York session."""
    con.execute("SET TimeZone = 'America/New_York'")
    for model in (wml.NaiveBayes(), wml.TAN()):
        pooled = [
            wml.cross_validate(con, source, "y", model, folds=3, seed=1, key="id").to_arrow()
            for source in ("events", "events_text")
        ]
        assert pooled[0] == pooled[1]
    loo = [
        leave_one_out(con, source, "y", wml.NaiveBayes(), key="id").to_arrow()
        for source in ("events", "events_text")
    ]
    assert loo[0].drop_columns(["fold"]) == loo[1].drop_columns(["fold"])
    monkeypatch.setattr(naive_bayes, "MAX_JOINED_ATTRIBUTES", 0)
    wide = [
        wml.NaiveBayes().fit(con, source, "y", keys=["id"]).predict_proba(con, source)
        for source in ("events", "events_text")
    ]
    assert wide[0] == wide[1]
