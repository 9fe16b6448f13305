"""KNearestNeighbors against scikit-learn's KNeighborsClassifier and a numpy reference.

The oracle scores the rows standardised as the model's rules say (StandardScaler on the
training rows; NULL: 0), with exact distances (``algorithm="kd_tree"``: scikit-learn's brute
search takes squared distances from a matrix product, whose rounding moves a distance near 0
by about 1e-8 and so the inverse-distance weights). Predictions and probabilities are compared
on the scored rows whose k-th and (k + 1)-th nearest distances differ (a tie there is broken by
a rule of each library's own); such rows are most of every data set here.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.csv as csv
import pytest
from sklearn.neighbors import KNeighborsClassifier

import warehouse_ml as wml
from warehouse_ml.engines.duckdb import DuckDBWarehouse
from warehouse_ml.errors import NotSupportedError, ParameterError
from warehouse_ml.models.learners.neighbors.k_nearest_neighbors import KNearestNeighbors

PROBABILITIES = 1e-12


def standardised(train: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``rows`` standardised by ``train``'s mean and population deviation (NaN: 0)."""
    mean = np.nanmean(train, axis=0)
    std = np.nanstd(train, axis=0)
    std[std == 0] = 1.0
    return np.nan_to_num((rows - mean) / std, nan=0.0)


def untied(distances: np.ndarray, k: int) -> np.ndarray:
    """The scored rows whose k-th and (k + 1)-th nearest distances differ by more than
    rounding (rows x stored rows of exact distances)."""
    ordered = np.sort(distances, axis=1)
    if ordered.shape[1] <= k:
        return np.ones(len(ordered), bool)
    return ordered[:, k] - ordered[:, k - 1] > 1e-9 * (1 + ordered[:, k])


def probabilities(model, con, rows) -> np.ndarray:
    return np.column_stack([c.to_numpy() for c in model.predict_proba(con, rows).columns])


def numeric_table(X: np.ndarray, y: np.ndarray) -> pa.Table:
    columns = {f"a{j}": pa.array(X[:, j]) for j in range(X.shape[1])}
    return pa.table({**columns, "y": pa.array([str(v) for v in y])})


def check_against_scikit_learn(con, X: np.ndarray, y: np.ndarray, k: int, weights: str) -> None:
    """Fit on two thirds of the rows, score the rest, compare (module docstring)."""
    test = np.arange(len(y)) % 3 == 0
    table = numeric_table(X, y)
    train_rows = pa.array(np.flatnonzero(~test))
    model = KNearestNeighbors(k=k, weights=weights).fit(con, table.take(train_rows), "y")
    scored = table.take(pa.array(np.flatnonzero(test)))
    got = probabilities(model, con, scored)
    predicted = np.array(model.predict(con, scored)["prediction"].to_pylist())
    Z_train, Z_test = standardised(X[~test], X[~test]), standardised(X[~test], X[test])
    oracle = KNeighborsClassifier(k, weights=weights, algorithm="kd_tree")
    oracle.fit(Z_train, np.array([str(v) for v in y[~test]]))
    expected = oracle.predict_proba(Z_test)
    distances = np.sqrt(((Z_test[:, None, :] - Z_train[None, :, :]) ** 2).sum(axis=2))
    clean = untied(distances, k)
    assert clean.mean() > 0.5
    assert model.classes_ == list(oracle.classes_)
    np.testing.assert_allclose(got[clean], expected[clean], rtol=0, atol=PROBABILITIES)
    assert predicted[clean].tolist() == oracle.predict(Z_test)[clean].tolist()


def read_shared(datasets, name: str) -> tuple[np.ndarray, np.ndarray]:
    table = csv.read_csv(datasets / f"{name}.csv")
    X = np.column_stack([table[c].to_numpy().astype(float) for c in table.column_names[:-1]])
    return X, np.array(table["class"].to_pylist())


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("name, k", [("iris", 5), ("diabetes", 7)])
def test_shared_data_sets_equal_scikit_learn(con, datasets, name, k, weights):
    X, y = read_shared(datasets, name)
    check_against_scikit_learn(con, X, y, k, weights)


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("k", [1, 4, 15])
def test_synthetic_data_equals_scikit_learn(con, k, weights):
    rng = np.random.default_rng(k)
    X = rng.normal(size=(450, 4)) * [1.0, 10.0, 0.1, 3.0] + [0.0, 5.0, -2.0, 100.0]
    y = np.digitize(X[:, 0] + (X[:, 2] + 2) * 10 + rng.normal(size=450), [-1.0, 0.5])
    check_against_scikit_learn(con, X, y, k, weights)


def test_exact_matches_vote_alone_under_distance_weights(con):
    """A scored row equal to stored rows: those rows' votes alone, 1 each (scikit-learn's
    rule), whatever the other neighbours."""
    train = pa.table({"x": [0.0, 0.0, 0.0, 1.0, 1.1], "y": ["a", "b", "b", "a", "a"]})
    model = KNearestNeighbors(k=5, weights="distance").fit(con, train, "y")
    got = probabilities(model, con, pa.table({"x": [0.0, 0.5]}))
    oracle = KNeighborsClassifier(5, weights="distance", algorithm="kd_tree")
    Z = standardised(train["x"].to_numpy()[:, None], train["x"].to_numpy()[:, None])
    oracle.fit(Z, train["y"].to_pylist())
    scored = standardised(train["x"].to_numpy()[:, None], np.array([[0.0], [0.5]]))
    np.testing.assert_allclose(got, oracle.predict_proba(scored), rtol=0, atol=PROBABILITIES)
    np.testing.assert_allclose(got[0], [1 / 3, 2 / 3], rtol=0, atol=1e-15)


def overlap_distances(train: pa.Table, rows: pa.Table, numeric: list[str], categorical: list[str]):
    """Exact distances under the model's rules: standardised numbers (NULL: 0), 0/1 per
    categorical attribute (NULL or unseen: a value of its own)."""
    squared = 0.0
    for name in numeric:
        a = train[name].to_numpy(zero_copy_only=False).astype(float)[:, None]
        b = rows[name].to_numpy(zero_copy_only=False).astype(float)[:, None]
        squared = squared + (standardised(a, b)[:, 0][:, None] - standardised(a, a)[:, 0]) ** 2
    for name in categorical:
        seen = {v for v in train[name].to_pylist() if v is not None}
        code = [v if v in seen else None for v in rows[name].to_pylist()]
        own = train[name].to_pylist()
        squared = squared + np.array([[float(c != o) for o in own] for c in code])
    return np.sqrt(squared)


def mixed_table(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    colour = [None if rng.random() < 0.1 else f"v{(v + rng.integers(0, 3)) % 5}" for v in y]
    size = [None if rng.random() < 0.1 else float(v + rng.normal()) for v in y]
    weight = rng.normal(size=n) * 20 + y * 10
    return pa.table({"colour": colour, "size": size, "weight": weight, "y": [f"c{v}" for v in y]})


@pytest.mark.parametrize("weights", ["uniform", "distance"])
def test_categorical_overlap_and_nulls_equal_a_precomputed_oracle(con, weights):
    train, rows = mixed_table(300, 3), mixed_table(120, 4)
    rows = rows.set_column(
        0, "colour", pa.array([*["unseen"] * 5, *rows["colour"][5:].to_pylist()])
    )
    model = KNearestNeighbors(k=6, weights=weights).fit(con, train, "y")
    distances = overlap_distances(train, rows, ["size", "weight"], ["colour"])
    oracle = KNeighborsClassifier(6, weights=weights, metric="precomputed")
    oracle.fit(overlap_distances(train, train, ["size", "weight"], ["colour"]), train["y"])
    clean = untied(distances, 6)
    assert clean.mean() > 0.5
    np.testing.assert_allclose(
        probabilities(model, con, rows)[clean], oracle.predict_proba(distances)[clean],
        rtol=0, atol=PROBABILITIES,
    )  # fmt: skip


def test_ties_go_to_the_stored_row_first_in_stored_order(con):
    """Stored rows at equal distances: the one whose stored values come first (here the
    smaller x) is the nearer; its key is its rank in that order."""
    train = pa.table({"x": [1.0, -1.0, 3.0, -3.0], "y": ["b", "a", "b", "a"]})
    model = KNearestNeighbors(k=1).fit(con, train, "y")
    scored = pa.table({"x": [0.0, 0.0]})
    assert model.predict(con, scored)["prediction"].to_pylist() == ["a", "a"]
    explained = model.explain(con, scored).to_pylist()
    assert [(r["row"], r["rank"], r["neighbour"], r["class"]) for r in explained] == [
        (0, 1, 2, "a"),
        (1, 1, 2, "a"),
    ]
    stored = model.parameters(con)["neighbours"].sort_by("neighbour")
    assert stored["class_index"].to_pylist() == [0, 0, 1, 1]


def test_explain_lists_each_rows_neighbours_their_distances_and_labels(con):
    train, rows = mixed_table(200, 7), mixed_table(6, 8)
    model = KNearestNeighbors(k=4).fit(con, train, "y")
    explained = model.explain(con, rows).to_pylist()
    stored = {r["neighbour"]: r for r in model.parameters(con)["neighbours"].to_pylist()}
    distances = overlap_distances(train, rows, ["size", "weight"], ["colour"])
    assert [r["row"] for r in explained] == [i for i in range(6) for _ in range(4)]
    for i in range(6):
        mine = [r for r in explained if r["row"] == i]
        assert [r["rank"] for r in mine] == [1, 2, 3, 4]
        nearest = np.sort(distances[i])[:4]
        np.testing.assert_allclose([r["distance"] for r in mine], nearest, rtol=0, atol=1e-12)
        labels = [model.classes_[stored[r["neighbour"]]["class_index"]] for r in mine]
        assert [r["class"] for r in mine] == labels
        votes = [labels.count(c) / 4 for c in model.classes_]
        np.testing.assert_allclose(probabilities(model, con, rows)[i], votes, rtol=0, atol=1e-15)
    keyed = model.explain(con, rows.append_column("id", pa.array(range(10, 16))), keys=["id"])
    assert keyed["id"].to_pylist() == [10 + r["row"] for r in explained]


def test_the_portable_search_gives_the_bounded_searchs_neighbours(con, monkeypatch):
    """DuckDB's search by its top-k aggregate, the lateral top-k per row (ORDER BY ...
    LIMIT k) and the ROW_NUMBER window over every pair give the same neighbours and ranks,
    ties included, and the same probabilities."""
    train, rows = mixed_table(250, 9), mixed_table(80, 10)
    con.register("arrow_rows", rows)
    con.execute("CREATE TABLE scored AS SELECT * FROM arrow_rows")
    model = KNearestNeighbors(k=5, weights="distance").fit(con, train, "y")
    fast, fast_explained = probabilities(model, con, rows), model.explain(con, rows)
    assert "ARG_MIN(" in model.sql(con, "scored").upper()
    monkeypatch.setattr(DuckDBWarehouse, "TOP_K_AGGREGATE", False)
    monkeypatch.setattr(DuckDBWarehouse, "LATERAL_TOP_K", True)
    text = model.sql(con, "scored").upper()
    assert "ARG_MIN" not in text and "LATERAL" in text and "LIMIT 5" in text
    np.testing.assert_array_equal(probabilities(model, con, rows), fast)
    assert model.explain(con, rows).equals(fast_explained)
    monkeypatch.setattr(DuckDBWarehouse, "LATERAL_TOP_K", False)
    assert "LATERAL" not in model.sql(con, "scored").upper()
    np.testing.assert_array_equal(probabilities(model, con, rows), fast)
    assert model.explain(con, rows).equals(fast_explained)


def test_sql_for_another_dialect_is_portable(con):
    con.register("rows", mixed_table(60, 11))
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    model = KNearestNeighbors(k=3).fit(con, "t", "y")
    text = model.sql(con, "t", dialect="postgres")
    assert "ROW_NUMBER" in text.upper() and "MATERIALIZED" not in text.upper()


@pytest.mark.parametrize(
    "weights", [{"sample_weight": "w"}, {"class_weight": "balanced"}], ids=["sample", "class"]
)
def test_select_k_refuses_weights_before_anything_runs(con, weights):
    """k-NN has no weighted form: select_k takes the weights cross_validate and the model take
    and refuses them as they do (models/capabilities.py ``require_weights``)."""
    table = mixed_table(50, 12).append_column("w", pa.array([1.0] * 50))
    statements: list[str] = []
    with pytest.raises(NotSupportedError, match="capability WeightedFit; model kind 'k_near"):
        wml.select_k(wml.connect(con, on_sql=statements.append), table, "y", [1, 3], **weights)
    assert not any(s.lstrip().upper().startswith("CREATE") for s in statements)


def test_weights_and_updates_are_refused(con):
    table = mixed_table(50, 12).append_column("w", pa.array([1.0] * 50))
    with pytest.raises(NotSupportedError, match="capability WeightedFit; model kind 'k_near"):
        KNearestNeighbors().fit(con, table, "y", sample_weight="w")
    model = KNearestNeighbors().fit(con, table, "y", features=["colour", "size"])
    with pytest.raises(NotSupportedError, match="capability CountUpdates; model kind 'k_near"):
        model.update(con, table, batch_id="b1")
    with pytest.raises(NotSupportedError, match="top does not apply"):
        model.explain(con, table, top=2)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"k": 0}, "k must be an integer >= 1"),
        ({"k": 2.0}, "k must be an integer >= 1"),
        ({"weights": "inverse"}, "weights must be one of 'uniform', 'distance'"),
        ({"metric": "chebyshev"}, "metric must be one of 'euclidean'"),
    ],
)
def test_settings_are_checked(options, message):
    with pytest.raises(ParameterError, match=message):
        KNearestNeighbors(**options)


def test_more_neighbours_than_rows_vote_with_every_row(con):
    train = pa.table({"x": [0.0, 1.0, 2.0], "y": ["a", "b", "b"]})
    model = wml.load(con, KNearestNeighbors(k=10).fit(con, train, "y", name="few").name_)
    np.testing.assert_allclose(
        probabilities(model, con, pa.table({"x": [5.0]})), [[1 / 3, 2 / 3]], atol=1e-15
    )
    assert model.stored_rows_ == 3 and math.isclose(model.n_rows_, 3)


@pytest.mark.parametrize(
    "settings",
    [{"weights": "uniform"}, {"weights": "distance", "metric": "minkowski", "p": 3.0}],
)
def test_select_k_errors_equal_cross_validating_each_k(con, settings):
    """Every k's error from the one ranked table equals a cross-validation of that k with the
    same settings on the same folds (each fold scaled by its own training rows); the least
    error is refitted with those settings."""
    table = mixed_table(240, 13).append_column("id", pa.array(range(240)))
    con.register("arrow_rows", table)
    con.execute("CREATE TABLE t AS SELECT * FROM arrow_rows")
    options = {"folds": 4, "seed": 3, "key": "id", "features": ["colour", "size", "weight"]}
    chosen = wml.select_k(con, "t", "y", [1, 2, 6, 9], name="chosen", **settings, **options)
    for row in chosen.comparison.to_pylist():
        model = KNearestNeighbors(k=row["k"], **settings)
        evaluation = wml.cross_validate(con, "t", "y", model, **options)
        assert row["error"] == pytest.approx(1 - evaluation.accuracy().accuracy, abs=1e-15)
    errors = chosen.comparison["error"].to_pylist()
    best = chosen.comparison["k"][errors.index(min(errors))].as_py()
    assert chosen.model.k == best and chosen.comparison["chosen"].to_pylist().count(True) == 1
    assert chosen.model.get_params() == KNearestNeighbors(k=best, **settings).get_params()
    assert wml.load(con, "chosen").get_params() == chosen.model.get_params()
