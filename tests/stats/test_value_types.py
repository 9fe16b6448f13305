"""Values whose type needs care when they are counted and compared (features.py): timestamps
with a time zone, whose text depends on the session's time zone; uint64 values above the
BIGINT range; integer-valued decimals such as DuckDB's HUGEINT (Arrow decimal128(38, 0)), as
target and as feature.

Oracles: the numpy reference of tests/reference.py and scikit-learn's GaussianNB; for TAN,
cross-validation and leave-one-out, the same model fitted on the values' text in a view.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest
from reference import naive_bayes_log_joint, softmax
from sklearn.naive_bayes import GaussianNB

import warehouse_ml as wml
from warehouse_ml.errors import ColumnError
from warehouse_ml.evaluation.loo import cross_validate_leave_one_out
from warehouse_ml.models.keyed_terms import literal_terms

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
        cross_validate_leave_one_out(con, source, "y", wml.NaiveBayes(), key="id").to_arrow()
        for source in ("events", "events_text")
    ]
    assert loo[0].drop_columns(["fold"]) == loo[1].drop_columns(["fold"])
    monkeypatch.setattr(literal_terms, "MAX_JOINED_ATTRIBUTES", 0)
    wide = [
        wml.NaiveBayes().fit(con, source, "y", keys=["id"], name=source).predict_proba(con, source)
        for source in ("events", "events_text")
    ]
    assert wide[0] == wide[1]


# -- uint64 ---------------------------------------------------------------------------------
TOP = 2**64 - 1
"""The largest uint64; BIGINT stops at 2**63 - 1."""


def unsigned_rows(n: int = 80, seed: int = 9) -> dict[str, list]:
    """u, v: uint64 codes near 2**64 - 1 (and 2**63, 0), with NULLs; w: uint64 spread over
    [2**64 - 2**62, 2**64) by class; y: two classes."""
    rng = np.random.default_rng(seed)
    codes = [TOP, TOP - 1, 2**63, 0]
    y = [int(v) for v in rng.integers(0, 2, n)]
    u = [None if rng.random() < 0.1 else codes[(v + rng.integers(0, 3)) % 4] for v in y]
    v = [codes[(2 * t + rng.integers(0, 2)) % 4] for t in y]
    w = [TOP - int(rng.integers(0, 2**60)) - (2**61 if t else 0) for t in y]
    return {"u": u, "v": v, "w": w, "y": [f"k{t}" for t in y]}


def unsigned_table(rows: dict[str, list], text: bool = False) -> pa.Table:
    kind = pa.string() if text else pa.uint64()
    return pa.table(
        {
            "u": pa.array(
                [None if x is None else (str(x) if text else x) for x in rows["u"]], kind
            ),
            "v": pa.array([str(x) if text else x for x in rows["v"]], kind),
            "w": pa.array(rows["w"], pa.uint64()),
            "y": pa.array(rows["y"]),
        }
    )


UNSEEN_UNSIGNED = pa.table(
    {
        "u": pa.array([TOP, TOP - 2, None, 2**63, 0], pa.uint64()),
        "v": pa.array([TOP - 1, TOP, 0, 2**63 + 1, None], pa.uint64()),
        "w": pa.array([TOP, 2**63, TOP - 2**61, None, TOP], pa.uint64()),
    }
)


def test_uint64_above_bigint_is_fitted_and_scored(con, monkeypatch):
    """Categorical uint64 codes up to 2**64 - 1, at fit and at scoring (seen, unseen, NULL):
    Naive Bayes equals the numpy reference (joined and join-free scoring); TAN equals the TAN
    of the codes' text; declared numeric, the Gaussian equals scikit-learn's."""
    rows = unsigned_rows()
    table = unsigned_table(rows)
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_VALUES", 0)  # joined first
    nb = wml.NaiveBayes().fit(con, table, "y", features=["u", "v"])
    test = {name: UNSEEN_UNSIGNED[name].to_pylist() for name in ("u", "v")}
    _, joint = naive_bayes_log_joint(
        {"u": rows["u"], "v": rows["v"]}, rows["y"], test, alpha=1.0, prior_alpha=0.0
    )
    np.testing.assert_allclose(
        probabilities(nb.predict_proba(con, UNSEEN_UNSIGNED)), softmax(joint), atol=1e-12
    )
    assert nb.predict(con, UNSEEN_UNSIGNED)["prediction"].to_pylist() == [
        ["k0", "k1"][i] for i in softmax(joint).argmax(axis=1)
    ]
    monkeypatch.setattr(literal_terms, "MAX_JOINED_ATTRIBUTES", 0)
    np.testing.assert_allclose(
        probabilities(nb.predict_proba(con, UNSEEN_UNSIGNED)), softmax(joint), atol=1e-12
    )

    tan = wml.TAN().fit(con, table, "y", features=["u", "v"], name="tan_codes")
    text_tan = wml.TAN().fit(con, unsigned_table(rows, text=True), "y", features=["u", "v"])
    text_test = pa.table(
        {n: pa.array([None if x is None else str(x) for x in test[n]]) for n in ("u", "v")}
    )
    assert tan.parents_ == text_tan.parents_
    assert tan.predict_proba(con, UNSEEN_UNSIGNED) == text_tan.predict_proba(con, text_test)

    gaussian = wml.NaiveBayes().fit(con, table, "y", features=["w"], numeric=["w"])
    x = np.array(rows["w"], dtype=float)[:, None]
    oracle = GaussianNB().fit(x, rows["y"])
    scored = np.array([[float(w)] for w in UNSEEN_UNSIGNED["w"].to_pylist() if w is not None])
    got = gaussian.predict_proba(con, UNSEEN_UNSIGNED.filter(UNSEEN_UNSIGNED["w"].is_valid()))
    np.testing.assert_allclose(probabilities(got), oracle.predict_proba(scored), atol=1e-9)
    means = gaussian.parameters(con)["gaussian"]["mean"].to_numpy()
    np.testing.assert_allclose(means, oracle.theta_[:, 0], rtol=1e-12)


# -- integer-valued decimals (HUGEINT) ------------------------------------------------------
LABELS = [-(10**30), 0, 10**30 + 7]
"""HUGEINT class labels far outside BIGINT."""


@pytest.fixture
def hugeints(con) -> dict[str, list]:
    """Table ``huge``: id, h (HUGEINT codes), g (HUGEINT spread, for numeric=[...]), t (HUGEINT
    target); and view ``huge_text`` with h and t as text."""
    rng = np.random.default_rng(12)
    n = 90
    t = [int(v) for v in rng.integers(0, 3, n)]
    codes = [10**35, -(10**35), 7]
    rows = {
        "id": list(range(n)),
        "h": [None if rng.random() < 0.1 else codes[(v + rng.integers(0, 2)) % 3] for v in t],
        "g": [v * 10**25 + int(rng.integers(0, 10**15)) for v in t],
        "t": [LABELS[v] for v in t],
    }
    decimals = {
        name: pa.array(
            [None if v is None else Decimal(v) for v in rows[name]], pa.decimal128(38, 0)
        )
        for name in ("h", "g", "t")
    }
    con.register("huge_arrow", pa.table({"id": rows["id"], **decimals}))
    con.execute(
        "CREATE TABLE huge AS SELECT id, CAST(h AS HUGEINT) AS h, CAST(g AS HUGEINT) AS g, "
        "CAST(t AS HUGEINT) AS t FROM huge_arrow"
    )
    con.execute(
        "CREATE VIEW huge_text AS SELECT id, CAST(h AS VARCHAR) AS h, CAST(t AS VARCHAR) AS t "
        "FROM huge"
    )
    return rows


def test_hugeint_target_holds_integer_class_labels(con, hugeints):
    """A HUGEINT target (Arrow decimal128(38, 0)): classes_ are Python ints, in the catalog and
    after load(), predictions are the labels themselves; a HUGEINT feature is categorical.
    Probabilities equal the numpy reference; cross-validation and leave-one-out equal the
    same runs on the text of h and t."""
    model = wml.NaiveBayes().fit(con, "huge", "t", features=["h"], name="huge_nb")
    assert model.classes_ == LABELS and all(type(c) is int for c in model.classes_)
    assert [(f.kind, f.sql_type) for f in model.features_] == [("categorical", "decimal128(38, 0)")]
    _, joint = naive_bayes_log_joint(
        {"h": hugeints["h"]}, hugeints["t"], {"h": hugeints["h"]}, alpha=1.0, prior_alpha=0.0
    )
    np.testing.assert_allclose(probabilities(model.predict_proba(con, "huge")), softmax(joint))
    predicted = model.predict(con, "huge")["prediction"]
    assert predicted.type == pa.decimal128(38, 0)
    assert predicted.to_pylist() == [LABELS[i] for i in softmax(joint).argmax(axis=1)]
    assert wml.load(con, "huge_nb").classes_ == LABELS

    tan = wml.TAN().fit(con, "huge", "t", features=["h", "g"], categorical=["g"])
    assert tan.classes_ == LABELS
    for model in (wml.NaiveBayes(), wml.TAN()):
        runs = [
            wml.cross_validate(con, source, "t", model, folds=3, key="id", features=["h"])
            for source in ("huge", "huge_text")
        ]
        assert runs[0].accuracy() == runs[1].accuracy()
        ours, text = (probabilities(r.to_arrow().select(["p_0", f"p_{LABELS[2]}"])) for r in runs)
        np.testing.assert_array_equal(ours, text)
    loo = [
        cross_validate_leave_one_out(con, source, "t", wml.NaiveBayes(), key="id", features=["h"])
        for source in ("huge", "huge_text")
    ]
    assert loo[0].accuracy() == loo[1].accuracy()


def test_integer_valued_decimals_are_integers_for_the_type_rule(con, hugeints):
    """HUGEINT and DECIMAL(p, 0) features are integers: categorical with few values, numeric
    with many (stats/integer_rule.py), either when declared (numeric: a Gaussian equal to
    scikit-learn's); a decimal with a fractional part stays numeric and is refused as a target
    with a message naming the column and the way out."""
    con.execute(
        "CREATE TABLE mixed AS SELECT id, g, CAST(id % 4 AS DECIMAL(18, 0)) AS d, "
        "CAST(id / 7 AS DECIMAL(10, 2)) AS amount, t FROM huge"
    )
    with pytest.warns(wml.IntegerColumnsWarning, match=r"'g' \(90 distinct values\)"):
        kinds = wml.NaiveBayes().fit(con, "mixed", "t", keys=["id"]).features_
    assert [(f.name, f.kind) for f in kinds] == [
        ("g", "numeric"), ("d", "categorical"), ("amount", "numeric"),
    ]  # fmt: skip
    declared = wml.NaiveBayes(categorical=["g"]).fit(con, "mixed", "t", keys=["id"]).features_
    assert declared[0].kind == "categorical"
    model = wml.NaiveBayes().fit(con, "huge", "t", features=["g"], numeric=["g"], name="huge")
    x = np.array(hugeints["g"], dtype=float)[:, None]
    oracle = GaussianNB().fit(x, np.array(hugeints["t"], dtype=object).astype(str))
    order = np.argsort([LABELS.index(int(c)) for c in oracle.classes_])
    np.testing.assert_allclose(
        probabilities(model.predict_proba(con, "huge")), oracle.predict_proba(x)[:, order],
        rtol=0, atol=1e-9,
    )  # fmt: skip
    with pytest.raises(ColumnError, match=r"target column .amount. .* decimal128\(10, 2\)"):
        wml.NaiveBayes().fit(con, "mixed", "amount", features=["d"])


def test_csv_values_stay_as_written(con, tmp_path):
    """DuckDB's CSV sniffer would read yes/no as BOOLEAN and ISO dates as DATE; a classifier
    keeps the file's text (labels p_yes / p_no, not p_True / p_False)."""
    path = tmp_path / "days.csv"
    path.write_text(
        "id,day,windy,play\n1,2024-01-01,true,yes\n2,2024-01-02,false,no\n"
        "3,2024-01-03,true,yes\n4,2024-01-04,false,no\n5,2024-01-05,true,no\n"
    )
    model = wml.NaiveBayes().fit(con, str(path), "play", keys=["id"])
    assert model.classes_ == ["no", "yes"]
    assert {f.name: f.sql_type for f in model.features_} == {"day": "string", "windy": "string"}
    scores = model.score_rows(con, str(path), keys=["id"])
    assert scores.column_names == ["id", "p_no", "p_yes", "prediction"]
    assert set(scores["prediction"].to_pylist()) <= {"no", "yes"}


def test_booleans_scored_by_a_model_of_text_name_the_cast_that_fixes_them(con, tmp_path):
    """A model fitted from a CSV path keeps the file's text ('t'/'f'); the same file loaded by
    DuckDB's read_csv is BOOLEAN: refused with the fix, which then scores as the path does."""
    path = tmp_path / "games.csv"
    path.write_text("id,windy,play\n1,t,yes\n2,f,no\n3,t,yes\n4,f,no\n5,t,no\n6,f,no\n7,t,yes\n")
    model = wml.NaiveBayes().fit(con, str(path), "play", keys=["id"])
    con.execute("CREATE TABLE sniffed AS SELECT * FROM read_csv(?)", [str(path)])
    with pytest.raises(ColumnError, match=r"column 'windy' of sniffed has type bool; model .* "
                       r"fitted on type string: .*CAST\(\"windy\" AS .*all_varchar=true"):  # fmt: skip
        model.predict(con, "sniffed", keys=["id"])
    con.execute("CREATE TABLE kept AS SELECT * FROM read_csv(?, all_varchar = true)", [str(path)])
    con.execute("CREATE TABLE kept_ids AS SELECT CAST(id AS BIGINT) AS id, windy FROM kept")
    assert model.predict_proba(con, "kept_ids").equals(model.predict_proba(con, str(path)))
    flags = pa.table({"windy": [True, False, True, False], "play": ["yes", "no", "yes", "no"]})
    boolean = wml.NaiveBayes().fit(con, flags, "play", name="flags")
    with pytest.raises(ColumnError, match=r"fitted on type bool: .*CAST\(\"windy\" AS BOOLEAN\)"):
        boolean.predict(con, str(path))
