"""Exact explanations (models/inspection/evidence.py, models/inspection/explaining.py): each attribute's evidence equals
a numpy reference computed from the model's own parameter tables, and the prior plus the
evidence of a row is its log-odds, for every row, contrast and layout."""

from __future__ import annotations

import math
import subprocess
import sys
from collections import defaultdict

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from conftest import load_text_csv
from reference import reference_terms

import warehouse_ml as wml

SETS = [("car", "class"), ("vote", "Class")]


def _source(con, datasets, name):
    load_text_csv(con, "d", datasets / f"{name}.csv")
    con.execute("CREATE TABLE src AS SELECT row_number() OVER () - 1 AS id, * FROM d")


def _rows(con, columns):
    quoted = ", ".join(f'"{c}"' for c in columns)
    return con.execute(f"SELECT {quoted} FROM src ORDER BY id").fetchall()


def _by_row(table):
    grouped = defaultdict(list)
    for r in table.to_pylist():
        grouped[r["row"] if "row" in r else r["id"]].append(r)
    return grouped


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
@pytest.mark.parametrize(("name", "target"), SETS)
def test_evidence_equals_the_reference_and_sums_to_the_log_odds(con, datasets, kind, name, target):
    _source(con, datasets, name)
    model = kind().fit(con, "src", target, keys=["id"], name="m")
    features = model.feature_names_in_
    terms, prior = reference_terms(model, con, _rows(con, features))
    classes = model.classes_
    joint = terms.sum(axis=1) + prior
    explained = _by_row(model.explain(con, "src"))
    log_proba = model.predict_log_proba(con, "src")
    lp = np.column_stack([log_proba.column(f"p_{c}").to_numpy() for c in classes])
    assert sorted(explained) == list(range(len(terms)))
    for i, rows in explained.items():
        predicted = int(np.argmax(joint[i]))
        order = np.argsort(-joint[i], kind="stable")
        runner = int(order[1] if order[0] == predicted else order[0])
        assert rows[0]["class"] == classes[predicted] and rows[0]["against"] == classes[runner]
        assert [r["rank"] for r in rows] == list(range(len(features) + 1))
        assert rows[0]["attribute"] is None
        assert rows[0]["evidence"] == pytest.approx(prior[predicted] - prior[runner], abs=1e-9)
        want = {a: terms[i, j, predicted] - terms[i, j, runner] for j, a in enumerate(features)}
        got = {r["attribute"]: r["evidence"] for r in rows[1:]}
        assert got.keys() == want.keys()
        for a in features:
            assert got[a] == pytest.approx(want[a], abs=1e-9)
        magnitudes = [abs(r["evidence"]) for r in rows[1:]]
        assert magnitudes == sorted(magnitudes, reverse=True)
        total = sum(r["evidence"] for r in rows)
        assert total == pytest.approx(lp[i, predicted] - lp[i, runner], abs=1e-9)


def test_tan_shows_each_attributes_parent_and_its_value(con, datasets):
    _source(con, datasets, "car")
    model = wml.TAN().fit(con, "src", "class", keys=["id"], name="m")
    rows = _rows(con, ["id", *model.feature_names_in_])
    values = {r[0]: dict(zip(model.feature_names_in_, r[1:], strict=True)) for r in rows}
    for r in model.explain(con, "src").to_pylist():
        if r["attribute"] is None:
            continue
        parent = model.parents_[r["attribute"]]
        assert r["parent"] == parent
        assert r["value"] == values[r["row"]][r["attribute"]]
        assert r["parent_value"] == (None if parent is None else values[r["row"]][parent])


@pytest.mark.slow
def test_adult_numerics_and_integer_codes(con, datasets):
    """Gaussian attributes and integer codes scored by lookup blocks in the prediction query are
    explained one attribute at a time; TAN's binned numerics sum to its log-odds too."""
    con.execute(f"CREATE TABLE a AS SELECT * FROM read_csv('{datasets / 'adult_train.csv'}')")
    con.execute("CREATE TABLE src AS SELECT row_number() OVER () - 1 AS id, * FROM a LIMIT 3000")
    numeric = ["age", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week"]
    model = wml.NaiveBayes().fit(con, "src", "class", keys=["id"], numeric=numeric, name="m")
    assert model.record.state.learned.lookup  # education-num is looked up when scoring
    features = model.feature_names_in_
    terms, prior = reference_terms(model, con, _rows(con, features))
    explained = model.explain(con, "src", against="<=50K")
    for i, rows in _by_row(explained).items():
        c, o = (model.classes_.index(rows[0][x]) for x in ("class", "against"))
        assert rows[0]["evidence"] == pytest.approx(prior[c] - prior[o], abs=1e-9)
        for r in rows[1:]:
            j = features.index(r["attribute"])
            assert r["evidence"] == pytest.approx(terms[i, j, c] - terms[i, j, o], abs=1e-9)
    tan = wml.TAN().fit(con, "src", "class", keys=["id"], numeric=numeric, name="t")
    _identity_holds(con, tan, "src", classes=tan.classes_)


def _identity_holds(con, model, source, classes, **options):
    lp = model.predict_log_proba(con, source)
    explained = model.explain(con, source, **options)
    totals = defaultdict(float)
    pairs = {}
    for r in explained.to_pylist():
        totals[r["row"], r["class"]] += r["evidence"]
        pairs[r["row"], r["class"]] = r["against"]
    for (i, c), total in totals.items():
        want = lp.column(f"p_{c}")[i].as_py() - lp.column(f"p_{pairs[i, c]}")[i].as_py()
        assert total == pytest.approx(want, abs=1e-9)
    return explained


def test_every_class_against_the_predicted_one(con, datasets):
    _source(con, datasets, "car")
    model = wml.NaiveBayes().fit(con, "src", "class", keys=["id"], name="m")
    explained = _identity_holds(con, model, "src", model.classes_, against=wml.EVERY_CLASS)
    predicted = model.predict(con, "src", keys=["id"]).column("prediction").to_pylist()
    n_features = len(model.feature_names_in_)
    for i, rows in _by_row(explained).items():
        assert {r["against"] for r in rows} == {predicted[i]}
        others = [c for c in model.classes_ if c != predicted[i]]
        assert [r["class"] for r in rows] == [c for c in others for _ in range(n_features + 1)]


def test_a_named_class_and_top(con, datasets):
    _source(con, datasets, "vote")
    model = wml.TAN().fit(con, "src", "Class", keys=["id"], name="m")
    full = model.explain(con, "src", against="democrat", keys=["id"])
    top = model.explain(con, "src", against="democrat", keys=["id"], top=2)
    assert top.column_names[0] == "id"
    assert set(top.column("rank").to_pylist()) == {0, 1, 2}
    kept = [r for r in full.to_pylist() if r["rank"] <= 2]
    assert top.to_pylist() == kept
    for r in full.to_pylist():
        if r["class"] == "democrat":  # predicted democrat: against the runner-up
            assert r["against"] == "republican"
        else:
            assert r["against"] == "democrat"


def test_wide_reason_codes_are_the_long_forms_top(con, datasets):
    _source(con, datasets, "car")
    model = wml.NaiveBayes().fit(con, "src", "class", keys=["id"], name="m")
    view = model.create_explanation_view(con, "why", "src", keys=["id"], top=3, form="wide")
    wide = con.sql(f"SELECT * FROM {view} ORDER BY id").to_arrow_table()
    assert wide.column_names == ["id", "class", "against", "prior_evidence"] + [
        f"reason_{p}{s}" for p in (1, 2, 3) for s in ("", "_value", "_evidence")
    ]
    long = _by_row(model.explain(con, "src", keys=["id"], top=3))
    for w in wide.to_pylist():
        rows = long[w["id"]]
        assert (w["class"], w["against"]) == (rows[0]["class"], rows[0]["against"])
        assert w["prior_evidence"] == rows[0]["evidence"]
        for p in (1, 2, 3):
            assert (w[f"reason_{p}"], w[f"reason_{p}_value"], w[f"reason_{p}_evidence"]) == (
                rows[p]["attribute"],
                rows[p]["value"],
                rows[p]["evidence"],
            )


def test_zero_probabilities_follow_the_infinity_rule(con):
    """alpha = 0: a value never seen with the runner-up makes it impossible (+Infinity); a
    row whose every class is impossible has no class and NULL evidence."""
    data = pa.table(
        {
            "id": range(6),
            "a": ["x", "x", "y", "y", "z", None],
            "b": ["u", "u", "v", "v", "v", "u"],
            "c": ["p", "p", "q", "q", "q", "p"],
        }
    )
    con.register("data", data)
    model = wml.NaiveBayes(alpha=0.0).fit(con, "data", "c", keys=["id"], name="m")
    rows = _by_row(model.explain(con, "data", keys=["id"]))
    x = {r["attribute"]: r["evidence"] for r in rows[0]}
    assert rows[0][0]["class"] == "p" and x == {None: 0.0, "a": math.inf, "b": math.inf}
    assert [r["rank"] for r in rows[0]] == [0, 1, 2]  # equal infinities: feature order
    assert {r["attribute"]: r["evidence"] for r in rows[5]}["a"] == 0.0  # NULL: nothing
    con.register("other", pa.table({"id": [9], "a": ["x"], "b": ["v"], "c": ["p"]}))
    impossible = model.explain(con, "other", keys=["id"]).to_pylist()
    assert [r["class"] for r in impossible] == [None] * 3
    assert [r["evidence"] for r in impossible] == [None] * 3
    assert model.predict(con, "other").column("prediction").to_pylist() == [None]


@pytest.mark.parametrize("alpha", [1.0, 0.0])
def test_the_top_k_are_the_full_rankings_first_k_ties_and_nulls_included(con, alpha):
    """top=k < attributes selects rank by rank; the full ranking compares every pair. They
    agree, with tied |evidence| (copied columns) going to the earlier attribute, infinities
    above every finite value and NULL evidence last, for every contrast."""
    a = ["x", "x", "y", "y", "z", None, "y", "x"]
    b = ["u", "u", "v", "v", "v", "u", None, "v"]
    data = pa.table(
        {"id": range(8), "a": a, "b": b, "a_copy": a, "d": ["s", "t"] * 4, "b_copy": b,
         "c": ["p", "p", "q", "q", "q", "p", "r", "r"]}
    )  # fmt: skip
    con.register("data", data)
    con.register("other", pa.table({"id": [9], "a": ["x"], "b": ["v"], "a_copy": ["x"],
                                    "d": ["s"], "b_copy": ["v"], "c": ["p"]}))  # fmt: skip
    model = wml.NaiveBayes(alpha=alpha).fit(con, "data", "c", keys=["id"], name="m")
    for source in ("data", "other"):
        for against in (None, "q", wml.EVERY_CLASS):
            full = model.explain(con, source, keys=["id"], against=against).to_pylist()
            for top in (1, 2, 3):
                kept = [r for r in full if r["rank"] <= top]
                got = model.explain(con, source, keys=["id"], against=against, top=top)
                assert got.to_pylist() == kept, (source, against, top)
    rows = _by_row(model.explain(con, "data", keys=["id"]))
    ranked = [r["attribute"] for r in rows[0][1:]]
    assert ranked.index("a") < ranked.index("a_copy") and ranked.index("b") < ranked.index("b_copy")


def test_bad_calls_are_refused_by_name(con, datasets):
    _source(con, datasets, "car")
    model = wml.NaiveBayes().fit(con, "src", "class", keys=["id"], name="m")
    with pytest.raises(wml.ParameterError, match="not a class"):
        model.explain(con, "src", against="nope")
    with pytest.raises(wml.ParameterError, match="top"):
        model.explain(con, "src", top=0)
    with pytest.raises(wml.ParameterError, match="wide"):
        model.create_explanation_view(con, "v", "src", top=None, form="wide")
    con.execute('CREATE TABLE clash AS SELECT id AS "Evidence", * EXCLUDE (id) FROM src')
    with pytest.raises(wml.ColumnConflictError, match="Evidence"):
        model.explain(con, "clash", keys=["Evidence"])
    with pytest.raises(wml.ColumnError, match="safety"):
        model.explain(con, con.sql("SELECT * EXCLUDE (safety) FROM src").to_arrow_table())


def test_the_view_is_plain_sql_rebuilt_with_the_model_and_dropped_with_it(con, datasets, tmp_path):
    path = tmp_path / "w.duckdb"
    con = duckdb.connect(str(path))
    _source(con, datasets, "car")
    model = wml.TAN().fit(con, "src", "class", keys=["id"], name="m")
    model.create_explanation_view(con, "why", "src", keys=["id"], top=2, against="acc")
    con.close()
    read = (  # warehouse_ml made unimportable: plain SQL only
        "import sys; sys.modules['warehouse_ml'] = None; import duckdb; "
        "c = duckdb.connect(sys.argv[1], read_only=True); "
        "print(c.execute('SELECT count(*), sum(evidence) FROM why').fetchone())"
    )
    out = subprocess.run(
        [sys.executable, "-c", read, str(path)], capture_output=True, text=True, check=True
    )
    con = duckdb.connect(str(path))
    expected = con.sql("SELECT count(*), sum(evidence) FROM why").fetchall()[0]
    assert out.stdout.strip() == str(expected)
    refit = wml.TAN(alpha=2.0).fit(con, "src", "class", keys=["id"], name="m")
    after = con.sql("SELECT * FROM why ORDER BY id, rank").to_arrow_table()
    want = refit.explain(con, "src", keys=["id"], top=2, against="acc")
    assert after.to_pylist() == want.to_pylist()
    assert len(wml.registered_views(con, "m")) == 1
    wml.drop(con, "m")
    views = con.sql("SELECT count(*) FROM duckdb_views() WHERE view_name = 'why'").fetchall()
    assert views == [(0,)]
