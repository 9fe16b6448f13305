"""TAN: worked XOR example, numpy reference, pgmpy structure, real data, persistence."""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from conftest import FIXTURES, datasets_dir
from reference import tan_log_joint

import warehouse_ml as wml
from warehouse_ml.sqlgen import templates

XOR = FIXTURES / "xor.csv"


def _datasets() -> Path:
    folder = datasets_dir()
    if folder is None:
        pytest.skip("shared data sets not found (set WML_DATASETS)")
    return folder


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    yield connection
    connection.close()


def _table(con, model, part: str) -> pa.Table:
    table = model.record.table(part)
    warehouse = wml.connect(con)
    names = warehouse.schema_of(table).names
    return warehouse.fetch(
        "select_table", table=table, order_columns=[templates.column(n, "t") for n in names]
    )


def _text_table(con, path: Path) -> pa.Table:
    return con.read_csv(str(path), all_varchar=True).to_arrow_table()


# -- a known TAN and its sampler ----------------------------------------------------------------
PARENTS = [-1, 0, 1, 1, 3, 2]  # a0 root; a1<-a0, a2<-a1, a3<-a1, a4<-a3, a5<-a2
CARDS = [3, 2, 3, 4, 2, 3]


def _known_tan(seed: int = 11, concentration: float = 0.3):
    rng = np.random.default_rng(seed)
    prior = rng.dirichlet([2.0, 2.0])
    tables = []
    for parent, card in zip(PARENTS, CARDS, strict=True):
        n_parent = 1 if parent < 0 else CARDS[parent]
        tables.append(rng.dirichlet([concentration] * card, size=(2, n_parent)))
    return prior, tables


def _sample_tan(n: int, seed: int = 3) -> pa.Table:
    prior, tables = _known_tan()
    rng = np.random.default_rng(seed)
    c = rng.choice(2, size=n, p=prior)
    values: list[np.ndarray] = []
    for i, parent in enumerate(PARENTS):
        pa_values = np.zeros(n, dtype=int) if parent < 0 else values[parent]
        probabilities = tables[i][c, pa_values]  # (n, card)
        u = rng.random(n)[:, None]
        values.append((u > probabilities.cumsum(axis=1)).sum(axis=1).clip(max=CARDS[i] - 1))
    columns = {f"a{i}": pa.array([f"v{v}" for v in col]) for i, col in enumerate(values)}
    columns["C"] = pa.array(["neg" if k == 0 else "pos" for k in c])
    return pa.table(columns)


# -- the worked example -------------------------------------------------------------------------
def test_xor_worked_example(con) -> None:
    data = _text_table(con, XOR)
    tan = wml.TAN(alpha=0, prior_alpha=0).fit(con, data, "class")
    assert tan.parents_ == {"a": None, "b": "a"}
    assert tan.cmi_ == {("a", "b"): pytest.approx(1.0, abs=1e-12)}
    classes = _table(con, tan, "classes").to_pylist()
    assert [math.exp(r["log_prior"]) for r in classes] == pytest.approx([0.5, 0.5], abs=1e-12)
    root = _table(con, tan, "categorical").to_pylist()
    assert {(r["attribute"], r["value"], r["class_index"]) for r in root} >= {
        ("a", v, c) for v in ("yes", "no") for c in (0, 1)
    }
    for r in root:
        assert math.exp(r["log_prob"]) == pytest.approx(0.5, abs=1e-12)
    plus, minus = tan.classes_.index("+"), tan.classes_.index("-")
    cpt = {
        (r["value"], r["parent_value"], r["class_index"]): (
            0.0 if r["log_prob"] is None else math.exp(r["log_prob"])
        )
        for r in _table(con, tan, "cpt").to_pylist()
    }
    expected = {
        ("yes", "yes", plus): 1.0, ("no", "yes", plus): 0.0,
        ("no", "no", plus): 1.0, ("yes", "no", plus): 0.0,
        ("no", "yes", minus): 1.0, ("yes", "yes", minus): 0.0,
        ("yes", "no", minus): 1.0, ("no", "no", minus): 0.0,
    }  # fmt: skip
    assert cpt == pytest.approx(expected, abs=1e-12)

    proba = tan.predict_proba(con, data)
    truth = data["class"].to_pylist()
    for row, label in zip(proba.to_pylist(), truth, strict=True):
        assert row[f"p_{label}"] == pytest.approx(1.0, abs=1e-12)
    assert tan.predict(con, data)["prediction"].to_pylist() == truth

    nb = wml.NaiveBayes(alpha=0).fit(con, data, "class")
    for row in nb.predict_proba(con, data).to_pylist():
        assert list(row.values()) == pytest.approx([0.5, 0.5], abs=1e-12)


def _with_nulls(table: pa.Table, seed: int, rate: float) -> pa.Table:
    rng = np.random.default_rng(seed)
    columns = {}
    for name in table.column_names:
        values = table[name].to_pylist()
        if name != "C":
            values = [None if rng.random() < rate else v for v in values]
        columns[name] = pa.array(values, pa.string())
    return pa.table(columns)


def _as_codes(table: pa.Table) -> pa.Table:
    """The attributes' values "v<k>" as integer codes k ("zz" as -1), the class kept."""

    def code(value: str | None) -> int | None:
        return None if value is None else -1 if value == "zz" else int(value[1:])

    return pa.table(
        {
            name: table[name]
            if name == "C"
            else pa.array([code(v) for v in table[name].to_pylist()], pa.int64())
            for name in table.column_names
        }
    )


@pytest.mark.parametrize("codes", [False, True], ids=["text", "integer-codes"])
@pytest.mark.parametrize(("alpha", "prior_alpha"), [(0.5, 0.5), (1.0, 0.0), (2.0, 1.0)])
def test_predict_proba_equals_numpy_reference(con, alpha, prior_alpha, codes) -> None:
    """Text values are scored by joins on (value, parent value), integer codes through the
    model's lookup table: both equal the reference, NULLs and unseen values included."""
    train = _with_nulls(_sample_tan(600, seed=1), seed=2, rate=0.08)
    test = _with_nulls(_sample_tan(150, seed=9), seed=4, rate=0.1)
    # values never seen in training, as attribute and as parent
    test = test.set_column(1, "a1", pa.array(["v9", *test["a1"].to_pylist()[1:]], pa.string()))
    test = test.set_column(
        0, "a0", pa.array(["zz", "zz", *test["a0"].to_pylist()[2:]], pa.string())
    )
    if codes:
        train, test = _as_codes(train), _as_codes(test)
    tan = wml.TAN(alpha=alpha, prior_alpha=prior_alpha).fit(con, train, "C")
    assert list(tan.record.state.learned.lookup) == ([*tan.parents_] if codes else [])
    classes, log_joint = tan_log_joint(
        train.to_pandas(), test.to_pandas(), "C", tan.parents_, alpha, prior_alpha
    )
    assert tan.classes_ == classes
    shifted = np.exp(log_joint - log_joint.max(axis=1, keepdims=True))
    expected = shifted / shifted.sum(axis=1, keepdims=True)
    got = np.column_stack([tan.predict_proba(con, test)[f"p_{c}"].to_numpy() for c in classes])
    np.testing.assert_allclose(got, expected, atol=1e-9, rtol=0)


def test_zero_alpha_impossible_classes_and_all_impossible_rows(con) -> None:
    train = pa.table({"a": ["x", "x", "y"], "b": ["p", "q", "p"], "C": ["u", "u", "w"]})
    tan = wml.TAN(alpha=0, prior_alpha=0).fit(con, train, "C")
    proba = tan.predict_proba(con, train).to_pylist()
    assert [r["p_u"] for r in proba] == pytest.approx([1.0, 1.0, 0.0], abs=1e-12)


# -- structure against pgmpy and the generating TAN ---------------------------------------------
def test_structure_equals_pgmpy_and_recovers_known_tan(con) -> None:
    from pgmpy.estimators import TreeSearch

    data = _sample_tan(10_000)
    tan = wml.TAN().fit(con, data, "C")
    ours = {frozenset((a, p)) for a, p in tan.parents_.items() if p is not None}
    truth = {frozenset((f"a{i}", f"a{p}")) for i, p in enumerate(PARENTS) if p >= 0}
    assert ours == truth
    frame = data.to_pandas()
    for root in ("a0", "a3"):
        dag = TreeSearch(frame, root_node=root, n_jobs=1).estimate(
            estimator_type="tan", class_node="C", show_progress=False
        )
        theirs = {frozenset(e) for e in dag.edges() if "C" not in e}
        assert ours == theirs
        model = wml.TAN(root=root).fit(con, data, "C")
        directed = {(p, a) for a, p in model.parents_.items() if p is not None}
        assert directed == {e for e in dag.edges() if "C" not in e}
        assert model.root_ == root and model.parents_[root] is None


def test_root_must_be_a_feature(con) -> None:
    data = _sample_tan(50)
    with pytest.raises(wml.ColumnError, match="root 'nope'"):
        wml.TAN(root="nope").fit(con, data, "C")
    with pytest.raises(wml.ParameterError):
        wml.TAN(bins=0)
    with pytest.raises(wml.ParameterError):
        wml.TAN(alpha=-1)


def test_tree_text(con) -> None:
    tan = wml.TAN().fit(con, _sample_tan(500), "C")
    mermaid = tan.tree_text()
    assert mermaid.startswith("graph TD") and mermaid.count("-->|") == 5
    dot = tan.tree_text("dot")
    assert dot.startswith("digraph") and dot.count(" bits") == 5
    with pytest.raises(wml.ParameterError):
        tan.tree_text("svg")


# -- numeric attributes -------------------------------------------------------------------------
def test_numeric_bins_learned_in_sql_and_reused_at_scoring(con) -> None:
    rng = np.random.default_rng(0)
    n = 1003
    x = rng.normal(size=n).round(2)
    c = (x + rng.normal(scale=0.5, size=n) > 0).astype(int)
    z = np.where(c == 1, "p", "q")
    z[rng.random(n) < 0.3] = "r"
    data = pa.table({"x": x, "z": z, "C": c})
    tan = wml.TAN(bins=4).fit(con, data, "C", name="binned")
    # NTILE(4): sorted values split into 4 tiles, the first n % 4 tiles one longer
    tiles = np.array_split(np.sort(x), 4)
    expected_edges = sorted({float(t.max()) for t in tiles})
    assert list(tan.record.state.learned.bins["x"]) == expected_edges
    stored = _table(con, tan, "bins").to_pylist()
    assert [r["upper"] for r in stored] == expected_edges
    assert [r["bin_index"] for r in stored] == list(range(len(expected_edges)))
    # scoring bins new values with the stored edges: a one-row source per value
    test = pa.table({"x": [-100.0, expected_edges[0], 100.0, None], "z": ["p", "p", "p", "p"]})
    binned = pa.table(
        {"x": pa.array(["0", "0", str(len(expected_edges) - 1), None]), "z": test["z"]}
    )
    discrete = wml.TAN(bins=4)
    codes = np.digitize(x, expected_edges[:-1], right=True).astype(str)
    train_binned = pa.table({"x": codes, "z": z, "C": c})
    discrete.fit(con, train_binned, "C", name="coded")
    assert discrete.parents_ == tan.parents_
    np.testing.assert_allclose(
        np.column_stack([tan.predict_proba(con, test)[k].to_numpy() for k in ("p_0", "p_1")]),
        np.column_stack(
            [discrete.predict_proba(con, binned)[k].to_numpy() for k in ("p_0", "p_1")]
        ),
        atol=1e-12,
    )


# -- real data ----------------------------------------------------------------------------------
def _accuracy(con, model, test: pa.Table, target: str) -> float:
    predicted = model.predict(con, test)["prediction"].to_pylist()
    truth = test[target].to_pylist()
    return sum(p == t for p, t in zip(predicted, truth, strict=True)) / len(truth)


def _holdout(table: pa.Table) -> tuple[pa.Table, pa.Table]:
    index = np.arange(table.num_rows)
    return table.filter(pa.array(index % 3 != 0)), table.filter(pa.array(index % 3 == 0))


@pytest.mark.parametrize("name", ["car", "corral", "monks-1", "kr-vs-kp"])
@pytest.mark.slow
def test_tan_beats_naive_bayes_on_real_data(con, name) -> None:
    folder = _datasets()
    if name == "monks-1":
        train = _text_table(con, folder / "monks-1_train.csv")
        test = _text_table(con, folder / "monks-1_test.csv")
    else:
        train, test = _holdout(_text_table(con, folder / f"{name}.csv"))
    target = train.column_names[-1]
    tan = wml.TAN().fit(con, train, target)
    nb = wml.NaiveBayes(alpha=1, prior_alpha=1).fit(con, train, target)
    tan_accuracy, nb_accuracy = _accuracy(con, tan, test, target), _accuracy(con, nb, test, target)
    assert tan_accuracy > nb_accuracy, (name, tan_accuracy, nb_accuracy)


# -- catalog: persistence and atomic replacement ------------------------------------------------
def test_persistence_round_trip_in_a_new_connection(tmp_path) -> None:
    path = str(tmp_path / "wh.duckdb")
    first = duckdb.connect(path)
    data = _with_nulls(_sample_tan(400), seed=5, rate=0.05)
    first.register("incoming", data)
    first.execute("CREATE TABLE train AS SELECT * FROM incoming")
    model = wml.TAN(alpha=0.25, prior_alpha=1.0, root="a2", bins=3).fit(
        first, "train", "C", name="my tan"
    )
    model.create_view(first, "scores", "train")
    before = model.predict_proba(first, "train")
    view_before = first.sql("SELECT * FROM scores").fetchall()
    parents, cmi, text = model.parents_, model.cmi_, model.tree_text()
    first.close()

    second = duckdb.connect(path)
    loaded = wml.load(second, "my tan")
    assert isinstance(loaded, wml.TAN)
    assert (loaded.alpha, loaded.prior_alpha, loaded.root, loaded.bins) == (0.25, 1.0, "a2", 3)
    assert loaded.parents_ == parents and loaded.cmi_ == cmi and loaded.tree_text() == text
    assert loaded.predict_proba(second, "train").equals(before)
    assert second.sql("SELECT * FROM scores").fetchall() == view_before
    second.close()


def _wml_tables(con) -> set[str]:
    rows = con.sql(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'wml'"
    ).fetchall()
    return {r[0] for r in rows}


def test_refit_replaces_atomically_and_failure_keeps_the_old_model(con, monkeypatch) -> None:
    data = _sample_tan(500)
    con.register("incoming", data)
    con.execute("CREATE TABLE train AS SELECT * FROM incoming")
    model = wml.TAN(alpha=1).fit(con, "train", "C", name="m")
    model.create_view(con, "scores", "train")
    old_view = con.sql("SELECT * FROM scores").fetchall()
    tables = _wml_tables(con)

    original_run = wml.Warehouse.run

    def run(self, template, /, **bindings):
        if template == "create_tan_cpt":  # the last step of a TAN fit
            raise RuntimeError("injected failure")
        return original_run(self, template, **bindings)

    monkeypatch.setattr(wml.Warehouse, "run", run)
    with pytest.raises(RuntimeError, match="injected"):
        wml.TAN(alpha=5).fit(con, "train", "C", name="m")
    monkeypatch.undo()
    assert _wml_tables(con) == tables
    assert con.sql("SELECT * FROM scores").fetchall() == old_view
    assert wml.load(con, "m").alpha == 1.0

    refit = wml.TAN(alpha=5).fit(con, "train", "C", name="m")
    assert con.sql("SELECT * FROM scores").fetchall() != old_view
    assert len(_wml_tables(con)) == len(tables)
    expected = refit.predict_proba(con, "train")["p_pos"].to_numpy()
    got = con.sql("SELECT p_pos FROM scores").fetchnumpy()["p_pos"]
    np.testing.assert_allclose(np.sort(got), np.sort(expected), atol=0)
    wml.drop(con, "m")
    assert _wml_tables(con) == {"models", "objects"}
