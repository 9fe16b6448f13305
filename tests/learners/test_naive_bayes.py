"""Naive Bayes against scikit-learn, a numpy reference and the worked examples."""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from conftest import FIXTURES, load_text_csv
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from reference import naive_bayes_log_joint, softmax
from sklearn.naive_bayes import CategoricalNB, GaussianNB

import warehouse_ml as wml

TENNIS = FIXTURES / "play_tennis.csv"


def probabilities(table: pa.Table) -> np.ndarray:
    return np.column_stack([table.column(i).to_numpy() for i in range(table.num_columns)])


# -- worked examples ------------------------------------------------------------------------
def test_play_tennis_maximum_likelihood(con, tennis):
    model = wml.NaiveBayes(alpha=0, prior_alpha=0).fit(con, "tennis", "play", keys=["day"])
    assert model.classes_ == ["no", "yes"]
    assert model.feature_names_in_ == ["outlook", "temperature", "humidity", "wind"]

    params = model.parameters(con)
    priors = dict(zip(*params["classes"].select(["class_label", "log_prior"]).to_pydict().values()))
    assert math.exp(priors["yes"]) == pytest.approx(9 / 14, abs=1e-15)
    cat = params["categorical"].to_pylist()
    wind = {
        (r["value"], r["class_index"]): math.exp(r["log_prob"])
        for r in cat
        if r["attribute"] == "wind"
    }
    assert wind[("strong", 1)] == pytest.approx(3 / 9, abs=1e-15)
    assert wind[("strong", 0)] == pytest.approx(3 / 5, abs=1e-15)

    query = pa.table(
        {"outlook": ["sunny"], "temperature": ["cool"], "humidity": ["high"], "wind": ["strong"]}
    )
    log_joint = {}
    for c, label in enumerate(model.classes_):
        terms = [
            r["log_prob"]
            for r in cat
            if r["class_index"] == c and r["value"] == query[r["attribute"]][0].as_py()
        ]
        log_joint[label] = priors[label] + sum(terms)
    assert round(math.exp(log_joint["yes"]), 4) == 0.0053
    assert round(math.exp(log_joint["no"]), 4) == 0.0206
    proba = model.predict_proba(con, query).to_pydict()
    expected_no = math.exp(log_joint["no"]) / (
        math.exp(log_joint["no"]) + math.exp(log_joint["yes"])
    )
    assert proba["p_no"][0] == pytest.approx(expected_no, abs=1e-12)
    assert model.predict(con, query)["prediction"].to_pylist() == ["no"]


def test_credit_single_joint_attribute_gives_empirical_two_thirds(con):
    """NB over one attribute is the empirical conditional: P(Good | Medium, High, 75) = 2/3."""
    load_text_csv(con, "credit", FIXTURES / "credit.csv", integers=("id", "income"))
    con.execute(
        "CREATE VIEW joint AS SELECT savings || '/' || assets || '/' || income AS profile, risk FROM credit"
    )
    model = wml.NaiveBayes(alpha=0).fit(con, "joint", "risk", name="joint")
    proba = model.predict_proba(con, pa.table({"profile": ["Medium/High/75"]})).to_pydict()
    assert proba["p_Good"][0] == pytest.approx(2 / 3, abs=1e-12)

    naive = wml.NaiveBayes(alpha=0).fit(con, "credit", "risk", keys=["id"], categorical=["income"])
    row = pa.table({"savings": ["Medium"], "assets": ["High"], "income": [75]})
    good = 5 / 8 * (3 / 5) ** 3
    bad = 3 / 8 * (1 / 3) ** 3
    assert naive.predict_proba(con, row).to_pydict()["p_Good"][0] == pytest.approx(
        good / (good + bad), abs=1e-12
    )


# -- scikit-learn oracles ----------------------------------------------------------------------
def _codes(rng, n, d, card):
    return rng.integers(0, card, size=(n, d))


@pytest.mark.parametrize("alpha", [1.0, 0.5, 2.5])
def test_equals_categorical_nb(con, alpha):
    rng = np.random.default_rng(7)
    x = _codes(rng, 400, 6, 4)
    y = (x[:, 0] + x[:, 1] + rng.integers(0, 3, 400)) % 3
    table = pa.table({**{f"x{i}": x[:, i] for i in range(6)}, "y": y})
    model = wml.NaiveBayes(alpha=alpha).fit(con, table, "y")
    ours = probabilities(model.predict_proba(con, table))
    oracle = CategoricalNB(alpha=alpha).fit(x, y)
    np.testing.assert_allclose(ours, oracle.predict_proba(x), rtol=0, atol=1e-9)
    log_ours = probabilities(model.predict_log_proba(con, table))
    np.testing.assert_allclose(log_ours, oracle.predict_log_proba(x), rtol=0, atol=1e-9)
    assert model.predict(con, table)["prediction"].to_pylist() == oracle.predict(x).tolist()
    assert model.score(con, table) == pytest.approx(oracle.score(x, y), abs=1e-12)


def test_score_is_accuracy_on_a_labelled_source_and_score_rows_the_view(con, tennis):
    model = wml.NaiveBayes().fit(con, tennis, "play", keys=["day"])
    rows = model.score_rows(con, tennis, keys=["day", "play"])
    assert rows.column_names == ["day", "play", "p_no", "p_yes", "prediction"]
    truth, predicted = rows["play"].to_pylist(), rows["prediction"].to_pylist()
    expected = np.mean([t == p for t, p in zip(truth, predicted, strict=True)])
    assert model.score(con, tennis) == pytest.approx(expected, abs=1e-15)
    con.execute("CREATE TABLE relabelled AS SELECT *, 'yes' AS always FROM tennis")
    assert model.score(con, "relabelled", target="always") == pytest.approx(
        predicted.count("yes") / len(predicted), abs=1e-15
    )
    con.execute("CREATE TABLE unlabelled AS SELECT * EXCLUDE (play) FROM tennis")
    with pytest.raises(wml.ColumnError, match="unlabelled has no target column 'play'"):
        model.score(con, "unlabelled")
    con.execute("CREATE TABLE no_labels AS SELECT * REPLACE (NULL::VARCHAR AS play) FROM tennis")
    with pytest.raises(wml.DataError, match="no row of no_labels has a value of 'play'"):
        model.score(con, "no_labels")


def test_equals_gaussian_nb(con):
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 500)
    x = rng.normal(
        loc=y[:, None] * [1.0, -2.0, 0.5, 3.0], scale=[1.0, 2.0, 0.3, 5.0], size=(500, 4)
    )
    table = pa.table({**{f"x{i}": x[:, i] for i in range(4)}, "y": y})
    for var_smoothing in (1e-9, 1e-2):
        model = wml.NaiveBayes(var_smoothing=var_smoothing).fit(con, table, "y")
        assert [f.kind for f in model.features_] == ["numeric"] * 4
        ours = probabilities(model.predict_proba(con, table))
        oracle = GaussianNB(var_smoothing=var_smoothing).fit(x, y)
        np.testing.assert_allclose(ours, oracle.predict_proba(x), rtol=0, atol=1e-9)


# -- numpy reference with NULLs, unseen values and mixed types ---------------------------------
values = st.sampled_from(["a", "b", "c", "d", None])


@st.composite
def datasets(draw):
    n = draw(st.integers(8, 40))
    d = draw(st.integers(1, 4))
    columns = {f"x{i}": draw(st.lists(values, min_size=n, max_size=n)) for i in range(d)}
    target = draw(st.lists(st.sampled_from(["p", "q", "r", None]), min_size=n, max_size=n))
    if len({t for t in target if t is not None}) < 2:
        target[0], target[1] = "p", "q"
    # rounded to 1e-6: values 1e-223 apart would have a variance that underflows to 0
    numeric = draw(
        st.lists(st.floats(-50, 50).map(lambda v: round(v, 6)) | st.none(), min_size=n, max_size=n)
    )
    if len({v for v, t in zip(numeric, target) if v is not None and t is not None}) < 2:
        # two distinct labelled values, so the variance floor (var_smoothing x the largest
        # variance) is positive
        numeric[:2] = [1.5, -2.0]
        target[0], target[1] = target[0] or "p", target[1] or "q"
    test = {
        f"x{i}": draw(st.lists(st.sampled_from(["a", "b", "e", None]), min_size=5, max_size=5))
        for i in range(d)
    }
    test["z"] = draw(
        st.lists(st.floats(-60, 60, allow_nan=False) | st.none(), min_size=5, max_size=5)
    )
    alpha = draw(st.sampled_from([0.5, 1.0, 3.0]))
    prior_alpha = draw(st.sampled_from([0.0, 1.0]))
    return {**columns, "z": numeric}, target, test, alpha, prior_alpha


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(datasets())
def test_matches_reference_with_nulls_and_unseen_values(data):
    train, target, test, alpha, prior_alpha = data
    con = duckdb.connect()
    table = pa.table({**train, "y": target})
    model = wml.NaiveBayes(alpha=alpha, prior_alpha=prior_alpha, var_smoothing=1e-3).fit(
        con, table, "y"
    )
    ours = model.predict_proba(con, pa.table(test))
    classes, joint = naive_bayes_log_joint(
        train,
        target,
        test,
        alpha=alpha,
        prior_alpha=prior_alpha,
        numeric=("z",),
        var_smoothing=1e-3,
    )
    assert model.classes_ == classes
    assert model.n_null_target_ == sum(t is None for t in target)
    got = probabilities(ours)
    np.testing.assert_allclose(got, softmax(joint), rtol=0, atol=1e-9)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=0, atol=1e-12)


# -- integer codes: the dense lookup table ------------------------------------------------------
@st.composite
def coded_datasets(draw):
    """Integer-coded attributes, contiguous (0..k-1, or shifted, even negative) or with gaps,
    NULLs, and test values never seen in training (inside and outside the seen range)."""
    n = draw(st.integers(8, 40))
    d = draw(st.integers(1, 4))
    starts = [draw(st.integers(-3, 5)) for _ in range(d)]
    gaps = [draw(st.booleans()) for _ in range(d)]
    domains = [[s, s + 2, s + 3] if g else [s, s + 1, s + 2] for s, g in zip(starts, gaps)]
    columns = {
        f"x{i}": draw(st.lists(st.sampled_from([*dom, None]), min_size=n, max_size=n))
        for i, dom in enumerate(domains)
    }
    target = draw(st.lists(st.sampled_from(["p", "q", "r", None]), min_size=n, max_size=n))
    if len({t for t in target if t is not None}) < 2:
        target[0], target[1] = "p", "q"
    test = {
        f"x{i}": draw(
            st.lists(
                st.sampled_from([*dom, dom[0] - 1, dom[0] + 1, dom[-1] + 7, None]),
                min_size=6,
                max_size=6,
            )
        )
        for i, dom in enumerate(domains)
    }
    alpha = draw(st.sampled_from([0.0, 0.5, 1.0]))
    return columns, target, test, alpha


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(coded_datasets(), st.sampled_from([pa.int8(), pa.int32(), pa.int64()]))
@example(  # an attribute never seen with a label (tests/learners/test_unobserved_attribute.py)
    data=(
        {"x0": [0, 0, 0, 0, 0, 0, 0, 0], "x1": [0, 0, 0, 0, 0, None, 0, None]},
        [None, None, None, None, None, "p", None, "q"],
        {"x0": [0, 0, 0, 0, 0, 0], "x1": [0, 0, 0, 0, 0, 0]},
        0.0,
    ),
    test_type=pa.int8(),
)
def test_integer_codes_match_reference(data, test_type):
    """Contiguous integer codes are scored through the lookup table (one INNER join per
    block of consecutive ones), codes with gaps through the text join; both equal the numpy
    reference, for NULLs, unseen values and a scoring column of another integer width."""
    train, target, test, alpha = data
    con = duckdb.connect()
    table = pa.table({**{a: pa.array(v, pa.int32()) for a, v in train.items()}, "y": target})
    model = wml.NaiveBayes(alpha=alpha).fit(con, table, "y")
    seen = {a: sorted({v for v, t in zip(vs, target) if v is not None and t is not None})
            for a, vs in train.items()}  # fmt: skip
    contiguous = {a for a, vs in seen.items() if vs and vs == list(range(vs[0], vs[-1] + 1))}
    looked_up = [a[0] for b in model.record.state.learned.lookup for a in b["attributes"]]
    assert set(looked_up) == contiguous
    ours = probabilities(
        model.predict_proba(con, pa.table({a: pa.array(v, test_type) for a, v in test.items()}))
    )
    with np.errstate(invalid="ignore", divide="ignore"):  # alpha = 0: log 0 = -inf, and a
        classes, joint = naive_bayes_log_joint(  # row where every class is impossible is NaN
            train, target, test, alpha=alpha, prior_alpha=0.0
        )
        expected = softmax(joint)
    assert model.classes_ == classes
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)


def test_parameter_tables_are_registered_in_one_statement_before_they_are_created(con):
    """The classes, categorical, unseen and gaussian tables are registered by one INSERT into
    the registry (one statement where each took one), every table before it is created."""
    table = pa.table(
        {
            "a": ["x", "y", "x", "y"],
            "b": [0, 1, 1, 0],
            "h": [1.5, 2.0, 0.5, 3.0],
            "y": ["p", "q", "p", "q"],
        }
    )
    seen: list[str] = []
    model = wml.NaiveBayes().fit(wml.connect(con, on_sql=seen.append), table, "y")
    registered = [i for i, sql in enumerate(seen) if sql.startswith('INSERT INTO "wml"."objects"')]
    created = {
        role: next(
            i for i, sql in enumerate(seen) if sql.startswith(f'CREATE TABLE "wml"."{name}"')
        )
        for role, name in ((r, model.record.table(r).name) for r in model.record.parts)
    }
    assert sorted(created) == [
        "categorical",
        "classes",
        "gaussian",
        "histogram",
        "histogram_bins",
        "lookup",
        "unseen",
    ]
    first = seen[registered[0]]
    assert all(f"_{role}" in first for role in ("classes", "categorical", "unseen", "gaussian"))
    assert registered[0] < min(created.values())
    assert len(registered) == 4  # + the lookup table, the histogram's bins and counts
    for role, index in created.items():
        assert any(f'_{role}"]' in seen[i] and i < index for i in registered), role


def test_lookup_holds_one_row_per_code(con):
    """Layout of the lookup table: each attribute's seen values, its unseen slot and its NULL
    slot (log 1 = 0 for every class); a block holds every combination of its attributes'
    slots, in mixed radix (the first attribute most significant), the terms summed."""
    table = pa.table(
        {"a": [0, 1, 2, 1, None], "b": [5, 6, 5, 6, 6], "y": ["p", "q", "p", "q", "q"]}
    )
    model = wml.NaiveBayes(alpha=1.0).fit(con, table, "y")
    assert list(model.record.state.learned.lookup) == [
        {"first_code": 0, "attributes": [["a", 0, 2], ["b", 5, 6]]}
    ]
    lookup = model.parameters(con)["lookup"].sort_by("code").to_pylist()
    assert [r["code"] for r in lookup] == list(range(5 * 4))
    # slots: a 0, 1, 2, unseen 3, NULL 4; b 5 -> 0, 6 -> 1, unseen 2, NULL 3
    a_unseen = math.log(1 / 5)  # alpha / (n_c + alpha * 3), n_p = 2, n_q = 2 non-NULL a
    b6_given_q = math.log(4 / 5)  # (3 + 1) / (3 + 2)
    assert lookup[4 * 4 + 3] == {"code": 19, "lp_0": 0.0, "lp_1": 0.0}  # both NULL
    assert lookup[4 * 4 + 1]["lp_1"] == pytest.approx(b6_given_q, abs=1e-15)  # a NULL, b = 6
    assert lookup[3 * 4 + 3]["lp_0"] == pytest.approx(a_unseen, abs=1e-15)  # b NULL
    b5_given_p = math.log(3 / 4)  # (2 + 1) / (2 + 2)
    assert lookup[3 * 4 + 0]["lp_0"] == pytest.approx(a_unseen + b5_given_p, abs=1e-15)


def test_lookup_blocks_hold_consecutive_attributes_within_the_code_limit(con, monkeypatch):
    """Looked-up attributes are blocked in feature order (text attributes and integer codes
    with gaps are joined on their text); a block never exceeds MAX_BLOCK_CODES codes."""
    from warehouse_ml.models.keyed_terms import lookup

    monkeypatch.setattr(lookup, "MAX_BLOCK_CODES", 30)
    table = pa.table(
        {
            "a": [0, 1, 0, 1],  # 4 slots
            "b": [0, 1, 2, 0],  # 5 slots: a, b = 20 codes
            "c": [1, 2, 1, 2],  # 4 slots: 80 > 30, a new block
            "t": ["u", "v", "u", "v"],  # text
            "d": [3, 4, 3, 4],  # c, d = 16 codes
            "g": [0, 2, 0, 2],  # a gap: text join
            "e": [7, 8, 9, 7],  # 5 slots: 80 > 30, a new block
            "y": ["p", "q", "p", "q"],
        }
    )
    model = wml.NaiveBayes(alpha=1.0).fit(con, table, "y", name="blocked")
    assert list(model.record.state.learned.lookup) == [
        {"first_code": 0, "attributes": [["a", 0, 1], ["b", 0, 2]]},
        {"first_code": 20, "attributes": [["c", 1, 2], ["d", 3, 4]]},
        {"first_code": 36, "attributes": [["e", 7, 9]]},
    ]
    assert model.parameters(con)["lookup"].num_rows == 41
    test = pa.table({c: table[c] for c in table.column_names if c != "y"})
    reference = wml.NaiveBayes(alpha=1.0).fit(
        con,
        table.cast(pa.schema([pa.field(c, pa.string()) for c in table.column_names])),
        "y",
        name="text",
    )  # every attribute as text: no lookup at all
    assert list(reference.record.state.learned.lookup) == []
    np.testing.assert_allclose(
        probabilities(model.predict_proba(con, test)),
        probabilities(reference.predict_proba(con, test.cast(
            pa.schema([pa.field(c, pa.string()) for c in test.column_names])))),
        rtol=0, atol=1e-12,
    )  # fmt: skip


# -- fitted models: parameters as literals -----------------------------------------------------
@pytest.mark.parametrize(
    ("limits", "joins"),
    [
        # joined: one per block of integer attributes (4 of 6 slots each fit in
        # MAX_BLOCK_CODES), one for the text attribute's seen values; its unseen term,
        # prior and Gaussian are literals
        ({"MAX_LITERAL_VALUES": 0}, 12 // 4 + 1),
        ({}, 12 // 4),  # the text attribute's few values as literals
        ({"MAX_JOINED_ATTRIBUTES": 10}, 0),  # wide: every attribute
    ],
)
def test_fitted_model_scored_from_literals(monkeypatch, limits, joins):
    """A fitted model's parameters are written into its query where they are few (a CASE per
    attribute and class), every attribute's above MAX_JOINED_ATTRIBUTES; each form equals
    the numpy reference, views included."""
    from warehouse_ml.models.keyed_terms import literal_terms

    for name, value in limits.items():
        monkeypatch.setattr(literal_terms, name, value)
    rng = np.random.default_rng(7)
    n, d = 300, 12
    train = {
        f"c{i}": [None if rng.random() < 0.1 else int(v) for v in rng.integers(0, 4, n)]
        for i in range(d)
    }
    train["t"] = [None if rng.random() < 0.1 else str(v) for v in rng.choice(["x", "y'z", "w"], n)]
    train["z"] = [None if rng.random() < 0.1 else float(v) for v in rng.normal(size=n)]
    target = [str(v) for v in rng.choice(["p", "q", "r"], n)]
    test = {a: list(v[:40]) for a, v in train.items()}
    test["c0"][:3] = [9, -1, None]  # unseen and NULL values
    test["t"][:2] = ["never", None]
    con = duckdb.connect()
    con.register("train", pa.table({"id": range(n), **train, "y": target}))
    con.execute("CREATE TABLE scored AS SELECT * FROM train LIMIT 0")
    con.register("test", pa.table({"id": range(40), **test}))
    con.execute("INSERT INTO scored BY NAME SELECT * FROM test")
    model = wml.NaiveBayes(alpha=0.5).fit(con, "train", "y", keys=["id"])
    assert model.sql(con, "scored", keys=["id"]).count(" JOIN ") == joins
    with np.errstate(divide="ignore"):
        classes, joint = naive_bayes_log_joint(
            train, target, test, alpha=0.5, prior_alpha=0.0, numeric=("z",)
        )
    expected = softmax(joint)
    np.testing.assert_allclose(
        probabilities(model.predict_proba(con, pa.table(test))), expected, rtol=0, atol=1e-9
    )
    model.create_view(con, "wide_scores", "scored", keys=["id"])
    columns = ", ".join(f'"p_{c}"' for c in classes)
    view = con.sql(f"SELECT {columns} FROM wide_scores ORDER BY id").fetchall()
    np.testing.assert_allclose(np.array(view), expected, rtol=0, atol=1e-9)


def test_wide_model_counted_in_chunks(monkeypatch, con, tennis):
    """A model wider than MAX_COUNTED_ATTRIBUTES counts its attributes chunk by chunk into a
    staging table, dropped afterwards: the same parameters as one count statement."""
    from warehouse_ml.stats import counting

    whole = wml.NaiveBayes().fit(con, "tennis", "play", keys=["day"], name="whole")
    monkeypatch.setattr(counting, "MAX_COUNTED_ATTRIBUTES", 3)
    chunked = wml.NaiveBayes().fit(con, "tennis", "play", keys=["day"], name="chunked")
    assert chunked.record.parts == whole.record.parts
    assert chunked.parameters(con) == whole.parameters(con)
    tables = con.sql("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'wml'").fetchall()
    assert not [t for (t,) in tables if t.endswith("_counts")]


# -- smoothing conventions ---------------------------------------------------------------------
def test_weka_laplace_and_m_estimate(con, tennis):
    weka = wml.NaiveBayes(alpha=1, prior_alpha=1).fit(
        con, "tennis", "play", keys=["day"], name="weka"
    )
    priors = weka.parameters(con)["classes"].to_pydict()
    assert [math.exp(v) for v in priors["log_prior"]] == pytest.approx([6 / 16, 10 / 16], abs=1e-15)
    cat = weka.parameters(con)["categorical"].to_pylist()
    outlook_overcast_no = next(
        r
        for r in cat
        if r["attribute"] == "outlook" and r["value"] == "overcast" and r["class_index"] == 0
    )
    assert math.exp(outlook_overcast_no["log_prob"]) == pytest.approx((0 + 1) / (5 + 3), abs=1e-15)

    m_est = wml.NaiveBayes(alpha=0, m=3).fit(con, "tennis", "play", keys=["day"], name="m")
    cat = m_est.parameters(con)["categorical"].to_pylist()
    sunny_yes = next(
        r
        for r in cat
        if r["attribute"] == "outlook" and r["value"] == "sunny" and r["class_index"] == 1
    )
    assert math.exp(sunny_yes["log_prob"]) == pytest.approx((2 + 3 * (1 / 3)) / (9 + 3), abs=1e-15)


def test_maximum_likelihood_zero_counts_make_a_class_impossible(con, tennis):
    model = wml.NaiveBayes(alpha=0).fit(con, "tennis", "play", keys=["day"])
    overcast = pa.table(
        {"outlook": ["overcast"], "temperature": ["hot"], "humidity": ["high"], "wind": ["weak"]}
    )
    assert model.predict_proba(con, overcast).to_pydict() == {"p_no": [0.0], "p_yes": [1.0]}
    unseen = pa.table(
        {"outlook": ["fog"], "temperature": [None], "humidity": [None], "wind": [None]}
    )
    prior_only = model.predict_proba(con, unseen).to_pydict()
    assert prior_only["p_yes"][0] == pytest.approx(9 / 14, abs=1e-12)


# -- decision rules ----------------------------------------------------------------------------
def test_threshold_and_loss_matrix_decisions(con, tennis):
    model = wml.NaiveBayes(alpha=1).fit(con, "tennis", "play", keys=["day"])
    p_yes = model.predict_proba(con, "tennis")["p_yes"].to_pylist()
    for t in (0.2, 0.5, 0.8):
        got = model.predict(con, "tennis", threshold=t, positive="yes")["prediction"].to_pylist()
        assert got == ["yes" if p >= t else "no" for p in p_yes]
    # Missing a "yes" costs 4, a false "yes" costs 1: predict yes when 4 p > 1 - p, p > 0.2.
    got = model.predict(con, "tennis", loss=[[0, 1], [4, 0]], keys=["day"]).to_pydict()
    assert got["day"] == list(range(1, 15))
    assert got["prediction"] == ["yes" if 4 * p > (1 - p) else "no" for p in p_yes]
    with pytest.raises(wml.ParameterError, match="2x2"):
        model.predict(con, "tennis", loss=[[0, 1, 2], [1, 0, 2]])
    with pytest.raises(wml.ParameterError, match=r"\[0, 1\]"):
        model.predict(con, "tennis", threshold=1.5)
    with pytest.raises(wml.ParameterError, match=">= 0"):
        model.predict(con, "tennis", loss=[[0, -1], [1, 0]])


def test_three_class_loss_matrix_hand_computed(con):
    train = pa.table({"x": ["a", "a", "a", "b", "b", "c"], "y": ["r", "s", "t", "s", "t", "t"]})
    model = wml.NaiveBayes(alpha=0).fit(con, train, "y")
    # x = a: P = (1/3, 1/3, 1/3) by counts; with loss rows = truth, columns = prediction:
    loss = [[0, 5, 5], [1, 0, 1], [1, 1, 0]]
    # expected losses: predict r: (0+1+1)/3, s: (5+0+1)/3, t: (5+1+0)/3 -> r.
    got = model.predict(con, pa.table({"x": ["a"]}), loss=loss)["prediction"].to_pylist()
    assert got == ["r"]
    assert model.predict(con, pa.table({"x": ["a"]}))["prediction"].to_pylist() == [
        "r"
    ]  # tie -> first


# -- types and sources --------------------------------------------------------------------------
def test_categorical_types_of_every_kind(con):
    con.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
    con.execute(
        """CREATE TABLE typed AS SELECT * FROM (VALUES
        ('x', 1, TRUE, 'sad'::mood, DATE '2024-01-01', 'A'),
        ('y', 2, FALSE, 'ok'::mood, DATE '2024-01-02', 'B'),
        ('x', 1, TRUE, 'happy'::mood, DATE '2024-01-01', 'A'),
        ('y', 3, NULL, 'ok'::mood, DATE '2024-01-03', 'B')) t(s, i, b, e, d, y)"""
    )
    model = wml.NaiveBayes(alpha=1).fit(con, "typed", "y")
    assert [f.kind for f in model.features_] == ["categorical"] * 5
    proba = probabilities(model.predict_proba(con, "typed"))
    codes = con.sql(
        "SELECT s, i, CAST(b AS VARCHAR), CAST(e AS VARCHAR), CAST(d AS VARCHAR), y FROM typed"
    ).fetchall()
    train = {f"c{j}": [r[j] for r in codes] for j in range(5)}
    classes, joint = naive_bayes_log_joint(
        train, [r[5] for r in codes], train, alpha=1, prior_alpha=0
    )
    np.testing.assert_allclose(proba, softmax(joint), atol=1e-12)
    # integer and boolean targets keep their type in predictions
    model = wml.NaiveBayes().fit(con, "typed", "b", features=["s", "i"])
    assert model.classes_ == [False, True]
    assert model.predict(con, "typed")["prediction"].type == pa.bool_()


def test_sources_arrow_reader_parquet_csv_and_schema(con, tmp_path):
    table = pacsv.read_csv(TENNIS)
    pq.write_table(table, tmp_path / "tennis.parquet")
    con.execute("CREATE SCHEMA sales")
    con.execute(f"CREATE TABLE sales.tennis AS SELECT * FROM read_csv('{TENNIS}')")  # play: BOOLEAN
    expected = None
    for i, source in enumerate(
        (
            table,
            table.to_reader(),
            str(tmp_path / "tennis.parquet"),
            str(TENNIS),
            "sales.tennis",
            ("sales", "tennis"),
        )
    ):
        model = wml.NaiveBayes().fit(con, source, "play", keys=["day"], name=f"m{i}")
        got = probabilities(model.predict_proba(con, table))
        if expected is None:
            expected = got
        np.testing.assert_array_equal(got, expected)


def test_predictions_keep_source_order_on_many_rows(con):
    data = wml.synthetic.tan_data(200_000, 6, seed=5)
    con.register("data", data)
    model = wml.NaiveBayes().fit(con, "data", "class")
    proba = model.predict_proba(con, data)
    oracle = CategoricalNB(alpha=1).fit(
        np.column_stack([data[f"a{i}"] for i in range(6)]), data["class"]
    )
    sample = slice(0, 200_000, 997)
    x = np.column_stack([data[f"a{i}"].to_numpy()[sample] for i in range(6)])
    np.testing.assert_allclose(probabilities(proba)[sample], oracle.predict_proba(x), atol=1e-9)


# -- catalog: persistence and atomic replacement --------------------------------------------------
def test_persistence_round_trip_in_a_new_connection(tmp_path):
    path = str(tmp_path / "wh.duckdb")
    first = duckdb.connect(path)
    load_text_csv(first, "tennis", TENNIS, integers=("day",))
    model = wml.NaiveBayes(alpha=0.5, prior_alpha=1).fit(
        first, "tennis", "play", keys=["day"], name="tennis nb"
    )
    model.create_view(first, "tennis_scores", "tennis", keys=["day"])
    before = model.predict_proba(first, "tennis")
    view_before = first.sql("SELECT * FROM tennis_scores ORDER BY day").to_arrow_table()
    first.close()

    second = duckdb.connect(path)
    loaded = wml.load(second, "tennis nb")
    assert isinstance(loaded, wml.NaiveBayes)
    assert (loaded.alpha, loaded.prior_alpha) == (0.5, 1.0)
    assert loaded.classes_ == ["no", "yes"] and loaded.n_rows_ == 14
    assert loaded.predict_proba(second, "tennis").equals(before)
    assert (
        second.sql("SELECT * FROM tennis_scores ORDER BY day").to_arrow_table().equals(view_before)
    )
    assert wml.list_models(second)["name"].to_pylist() == ["tennis nb"]
    with pytest.raises(wml.ModelNotFoundError, match="no model 'other'"):
        wml.load(second, "other")
    second.close()


def _wml_tables(con) -> set[str]:
    return {
        r[0]
        for r in con.sql(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'wml'"
        ).fetchall()
    }


def test_refit_replaces_atomically_and_failure_keeps_the_old_model(con, tennis, monkeypatch):
    model = wml.NaiveBayes(alpha=1).fit(con, "tennis", "play", keys=["day"], name="m")
    model.create_view(con, "scores", "tennis", keys=["day"])
    old_view = con.sql("SELECT * FROM scores ORDER BY day").fetchall()
    tables = _wml_tables(con)

    def failing_unseen(self, *args, **kwargs):
        raise RuntimeError("injected failure")

    original_run = wml.Warehouse.run

    def run(self, template, /, **bindings):
        if template == "create_nb_unseen":
            failing_unseen(self)
        return original_run(self, template, **bindings)

    monkeypatch.setattr(wml.Warehouse, "run", run)
    with pytest.raises(RuntimeError, match="injected"):
        wml.NaiveBayes(alpha=5).fit(con, "tennis", "play", keys=["day"], name="m")
    monkeypatch.undo()
    assert _wml_tables(con) == tables
    assert con.sql("SELECT * FROM scores ORDER BY day").fetchall() == old_view
    assert wml.load(con, "m").alpha == 1.0

    refit = wml.NaiveBayes(alpha=5).fit(con, "tennis", "play", keys=["day"], name="m")
    new_view = con.sql("SELECT * FROM scores ORDER BY day").fetchall()
    assert new_view != old_view
    expected = refit.predict_proba(con, "tennis")["p_yes"].to_pylist()
    assert [r[2] for r in new_view] == pytest.approx(expected, abs=0)
    assert len(_wml_tables(con)) == len(tables)  # old tables dropped, new ones in place

    wml.drop(con, "m")
    assert _wml_tables(con) == {"models", "objects"}
    with pytest.raises(duckdb.CatalogException):
        con.sql("SELECT * FROM scores")


def test_view_is_plain_sql_readable_without_python(tmp_path):
    path = str(tmp_path / "wh.duckdb")
    con = duckdb.connect(path)
    load_text_csv(con, "tennis", TENNIS, integers=("day",))
    wml.NaiveBayes().fit(con, "tennis", "play", keys=["day"]).create_view(
        con, "s", "tennis", keys=["day"]
    )
    con.close()
    # A plain DuckDB connection with warehouse_ml never touched: the view is just SQL.
    reader = duckdb.connect(path, read_only=True)
    rows = reader.sql(
        "SELECT day, p_no + p_yes AS total, prediction FROM s ORDER BY day"
    ).fetchall()
    assert [r[0] for r in rows] == list(range(1, 15))
    assert all(abs(r[1] - 1) < 1e-12 for r in rows)


# -- real data ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "target", "min_accuracy"),
    [("car.csv", "class", 0.85), ("mushroom.csv", "class", 0.94), ("vote.csv", "Class", 0.89)],
)
def test_real_categorical_data(con, datasets, name, target, min_accuracy):
    con.execute(
        f"CREATE TABLE d AS SELECT * FROM read_csv('{datasets / name}', all_varchar = true)"
    )
    model = wml.NaiveBayes(alpha=1).fit(con, "d", target)
    got = model.predict(con, "d", keys=[target]).to_pydict()
    accuracy = np.mean([p == t for p, t in zip(got["prediction"], got[target])])
    assert accuracy >= min_accuracy
    rows = con.sql("SELECT * FROM d").fetchall()
    columns = [c for c in con.sql("SELECT * FROM d").columns]
    train = {c: [r[i] for r in rows] for i, c in enumerate(columns) if c != target}
    classes, joint = naive_bayes_log_joint(
        train, [r[columns.index(target)] for r in rows], train, alpha=1, prior_alpha=0
    )
    np.testing.assert_allclose(
        probabilities(model.predict_proba(con, "d")), softmax(joint), atol=1e-9
    )


def test_adult_mixed_columns(con, datasets):
    con.execute(f"CREATE TABLE adult AS SELECT * FROM read_csv('{datasets / 'adult_train.csv'}')")
    con.execute(
        f"CREATE TABLE adult_test AS SELECT * FROM read_csv('{datasets / 'adult_test.csv'}')"
    )
    numeric = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
    model = wml.NaiveBayes().fit(con, "adult", "class", numeric=numeric)
    kinds = {f.name: f.kind for f in model.features_}
    assert {n for n, k in kinds.items() if k == "numeric"} == set(numeric)
    got = model.predict(con, "adult_test", keys=["class"]).to_pydict()
    accuracy = np.mean([p == t for p, t in zip(got["prediction"], got["class"])])
    assert accuracy > 0.80  # Naive Bayes on adult: about 83% in the literature
