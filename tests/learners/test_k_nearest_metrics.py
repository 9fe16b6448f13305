"""k-NN's metrics other than the Euclidean against scikit-learn's brute-force
KNeighborsClassifier, on the design the family measures (models/learners/neighbors/metrics.py).

The oracle's design: each numeric attribute standardised by the training rows (NULL: 0), each
categorical attribute one indicator per level seen in training plus one for NULL or unseen,
of value ``2 ** (-1 / p)`` for the Minkowski metrics (two levels then differ by
``2 * (2 ** (-1 / p)) ** p = 1``, the overlap distance) and ``1 / sqrt(2)`` for the cosine
(the vectors whose Euclidean distance is the euclidean metric's). Probabilities and
predictions are compared on the scored rows whose k-th and (k + 1)-th distances differ (a tie
there is broken by a rule of each library's own).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from scipy.spatial.distance import cdist
from sklearn.metrics.pairwise import cosine_distances
from sklearn.neighbors import KNeighborsClassifier

from warehouse_ml.engines.duckdb import DuckDBWarehouse
from warehouse_ml.errors import ParameterError
from warehouse_ml.models.learners.neighbors.k_nearest_neighbors import KNearestNeighbors
from warehouse_ml.models.learners.neighbors.metrics import metric_of
from warehouse_ml.stats.features import Feature

PROBABILITIES = 1e-12
NUMERIC, CATEGORICAL = ["size", "weight"], ["colour", "shape"]
METRICS = [("manhattan", 2.0), ("minkowski", 3.0), ("cosine", 2.0)]


def table(n: int, seed: int) -> pa.Table:
    """Two numeric attributes (one with NULLs), two categorical ones (one with NULLs) and a
    class of three values that depends on them."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    size = [None if rng.random() < 0.1 else float(v + rng.normal()) for v in y]
    colour = [None if rng.random() < 0.1 else f"v{(v + rng.integers(0, 3)) % 5}" for v in y]
    return pa.table(
        {
            "size": pa.array(size, pa.float64()),
            "weight": pa.array(rng.normal(size=n) * 20 + y * 10),
            "colour": pa.array(colour, pa.string()),
            "shape": pa.array([["round", "square"][v % 2] for v in rng.integers(0, 4, n)]),
            "y": pa.array([f"c{v}" for v in y]),
        }
    )


def design(train: pa.Table, rows: pa.Table, indicator: float) -> np.ndarray:
    """``rows`` on the oracle's design learned from ``train`` (module docstring)."""
    columns = []
    for name in NUMERIC:
        a = train[name].to_numpy(zero_copy_only=False).astype(float)
        b = rows[name].to_numpy(zero_copy_only=False).astype(float)
        std = np.nanstd(a)
        columns.append(np.nan_to_num((b - np.nanmean(a)) / (std if std > 0 else 1.0), nan=0.0))
    for name in CATEGORICAL:
        levels = sorted({v for v in train[name].to_pylist() if v is not None})
        values = rows[name].to_pylist()
        for level in [*levels, None]:
            own = [(v if v in levels else None) == level for v in values]
            columns.append(np.where(own, indicator, 0.0))
    return np.column_stack(columns)


def indicator(metric: str, p: float) -> float:
    """The value of a categorical attribute's indicator on the oracle's design."""
    return {"cosine": 2**-0.5, "manhattan": 0.5}.get(metric, 2 ** (-1 / p))


def oracle_distances(metric: str, p: float, Z_rows: np.ndarray, Z_train: np.ndarray):
    if metric == "cosine":
        return cosine_distances(Z_rows, Z_train)
    return cdist(Z_rows, Z_train, "minkowski", p=1.0 if metric == "manhattan" else p)


def untied(distances: np.ndarray, k: int) -> np.ndarray:
    ordered = np.sort(distances, axis=1)
    return ordered[:, k] - ordered[:, k - 1] > 1e-9 * (1 + ordered[:, k])


def probabilities(scores: pa.Table) -> np.ndarray:
    return np.column_stack([c.to_numpy() for c in scores.columns])


@pytest.fixture(scope="module")
def data():
    """A DuckDB connection holding the training rows ``train`` and the scored rows ``scored``
    (five of them with a colour unseen in training, and a key ``id``)."""
    import duckdb

    con = duckdb.connect()
    train, scored = table(300, 1), table(150, 2)
    scored = scored.set_column(
        2, "colour", pa.array([*["unseen"] * 5, *scored["colour"][5:].to_pylist()])
    ).append_column("id", pa.array(range(150), pa.int64()))
    for name, rows in (("train", train), ("scored", scored)):
        con.register(f"arrow_{name}", rows)
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM arrow_{name}")
    yield con, train, scored
    con.close()


@pytest.mark.parametrize("weights", ["uniform", "distance"])
@pytest.mark.parametrize("metric, p", METRICS)
def test_probabilities_and_the_view_equal_scikit_learn_brute_force(data, metric, p, weights):
    con, train, scored = data
    k = 6
    name = f"knn_{metric}_{str(p).replace('.', '_')}_{weights}"
    model = KNearestNeighbors(k=k, weights=weights, metric=metric, p=p).fit(
        con, "train", "y", name=name
    )
    Z_train = design(train, train, indicator(metric, p))
    Z_rows = design(train, scored, indicator(metric, p))
    oracle = KNeighborsClassifier(k, weights=weights, algorithm="brute", metric=metric, p=p)
    oracle.fit(Z_train, train["y"].to_pylist())
    expected = oracle.predict_proba(Z_rows)
    clean = untied(oracle_distances(metric, p, Z_rows, Z_train), k)
    assert clean.mean() > 0.8
    got = probabilities(model.predict_proba(con, "scored"))
    np.testing.assert_allclose(got[clean], expected[clean], rtol=0, atol=PROBABILITIES)
    model.create_view(con, f"{name}_view", "scored", keys=["id"])
    viewed = con.sql(f"SELECT * FROM {name}_view ORDER BY id").fetchall()
    np.testing.assert_array_equal(np.array([r[1:4] for r in viewed]), got)


@pytest.mark.parametrize("metric, p", [*METRICS, ("minkowski", 1.5)])
def test_explained_distances_are_the_metrics(data, metric, p):
    con, train, scored = data
    model = KNearestNeighbors(k=3, metric=metric, p=p).fit(con, "train", "y")
    explained = model.explain(con, scored.slice(0, 20), keys=["id"]).to_pylist()
    Z_train = design(train, train, indicator(metric, p))
    Z_rows = design(train, scored.slice(0, 20), indicator(metric, p))
    nearest = np.sort(oracle_distances(metric, p, Z_rows, Z_train), axis=1)[:, :3]
    got = np.array([r["distance"] for r in explained]).reshape(20, 3)
    np.testing.assert_allclose(got, nearest, rtol=0, atol=1e-12)


@pytest.mark.parametrize("p, same", [(2.0, "euclidean"), (2, "euclidean"), (1.0, "manhattan")])
def test_minkowski_with_p_2_is_euclidean_and_with_p_1_manhattan(p, same):
    """The same metric, so the same SQL: the squares and absolute values, no POWER."""
    features = [Feature("a", "numeric", "DOUBLE"), Feature("b", "categorical", "VARCHAR")]
    minkowski, other = metric_of("minkowski", p), metric_of(same)
    assert minkowski == other
    text = minkowski.reduced(features, "q", "t").sql()
    assert text == other.reduced(features, "q", "t").sql() and "POWER" not in text.upper()


def test_a_zero_vector_is_at_cosine_distance_1_from_every_row(con):
    """A row at the training mean of every numeric attribute (or NULL there) is the zero
    vector: its cosine similarity to any row is 0, its distance 1, as scikit-learn's
    ``cosine_distances`` (that of two zero vectors too)."""
    train = pa.table(
        {"a": [0.0, 1.0, -1.0, 2.0, -2.0, 0.0], "b": [1.0, 0.5, -0.5, 2.0, -3.0, 0.0]}
    ).append_column("y", pa.array(["p", "q", "p", "q", "p", "q"]))
    means = {c: float(np.mean(train[c].to_numpy())) for c in ("a", "b")}
    rows = pa.table(
        {"a": pa.array([means["a"], None, 1.5]), "b": pa.array([means["b"], None, -1.0])}
    )
    model = KNearestNeighbors(k=6, metric="cosine").fit(con, train, "y")
    explained = model.explain(con, rows).to_pylist()
    Z = np.column_stack(
        [(train[c].to_numpy() - means[c]) / np.std(train[c].to_numpy()) for c in ("a", "b")]
    )
    scored = np.column_stack(
        [
            np.nan_to_num(
                (rows[c].to_numpy(zero_copy_only=False).astype(float) - means[c])
                / np.std(train[c].to_numpy()),
                nan=0.0,
            )
            for c in ("a", "b")
        ]
    )
    expected = cosine_distances(scored, Z)
    assert expected[:2].tolist() == [[1.0] * 6] * 2
    got = np.array([r["distance"] for r in explained]).reshape(3, 6)
    np.testing.assert_allclose(got, np.sort(expected, axis=1), rtol=0, atol=1e-12)


def test_equal_rows_are_at_cosine_distance_0_and_vote_alone_under_distance_weights(data):
    """A scored row equal to a stored one is at distance 0 exactly, not a rounding away from
    it, so under distance weights the exact matches vote alone, 1 each (scikit-learn's
    rule): the first six training rows scored, each its own (or its duplicate's) class."""
    con, train, _ = data
    model = KNearestNeighbors(k=5, weights="distance", metric="cosine").fit(con, "train", "y")
    rows = train.slice(0, 6)
    explained = model.explain(con, rows).to_pylist()
    nearest = [r for r in explained if r["rank"] == 1]
    assert [r["distance"] for r in nearest] == [0.0] * 6
    got = probabilities(model.predict_proba(con, rows))
    matches = [[r for r in explained if r["row"] == i and r["distance"] == 0] for i in range(6)]
    expected = [
        [sum(m["class"] == c for m in ms) / len(ms) for c in model.classes_] for ms in matches
    ]
    np.testing.assert_array_equal(got, np.array(expected))


def grid(n: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "size": pa.array(rng.integers(0, 3, n).astype(float)),
            "weight": pa.array(rng.integers(0, 2, n).astype(float) + 1),
            "colour": pa.array([["red", "green"][v] for v in rng.integers(0, 2, n)]),
            "y": pa.array([f"c{v}" for v in rng.integers(0, 3, n)]),
        }
    )


@pytest.mark.parametrize("metric, p", METRICS)
def test_every_search_gives_the_same_neighbours_ties_included(con, monkeypatch, metric, p):
    """On a grid of few points every row ties across its k-th neighbour: DuckDB's one-pass
    view and its ranked search, the lateral top-k and the portable window agree exactly."""
    rows = grid(200, 5)
    con.register("arrow_grid", rows)
    con.execute("CREATE TABLE grid AS SELECT * FROM arrow_grid")
    model = KNearestNeighbors(k=4, weights="distance", metric=metric, p=p).fit(
        con, "grid", "y", keys=["id"], name="knn_grid"
    )
    model.create_view(con, "grid_scores", "grid", keys=["id"])
    viewed = np.array([r[1:4] for r in con.sql("SELECT * FROM grid_scores ORDER BY id").fetchall()])
    fast, explained = probabilities(model.predict_proba(con, "grid")), model.explain(con, rows)
    np.testing.assert_array_equal(viewed, fast)
    monkeypatch.setattr(DuckDBWarehouse, "TOP_K_AGGREGATE", False)
    monkeypatch.setattr(DuckDBWarehouse, "LATERAL_TOP_K", True)
    assert "LATERAL" in model.sql(con, "grid").upper()
    np.testing.assert_array_equal(probabilities(model.predict_proba(con, "grid")), fast)
    assert model.explain(con, rows).equals(explained)
    monkeypatch.setattr(DuckDBWarehouse, "LATERAL_TOP_K", False)
    np.testing.assert_array_equal(probabilities(model.predict_proba(con, "grid")), fast)
    assert model.explain(con, rows).equals(explained)


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"metric": "chebyshev"},
            "metric must be one of 'euclidean', 'manhattan', 'minkowski', 'cosine'",
        ),
        ({"metric": "minkowski", "p": 0.5}, r"p must be a finite number >= 1, got 0.5"),
        ({"metric": "minkowski", "p": float("inf")}, r"p must be a finite number >= 1, got inf"),
        ({"metric": "minkowski", "p": float("nan")}, r"p must be a finite number >= 1, got nan"),
        ({"metric": "minkowski", "p": True}, r"p must be a finite number >= 1, got True"),
        ({"metric": "minkowski", "p": "3"}, r"p must be a finite number >= 1, got '3'"),
        ({"metric": "manhattan", "p": 3}, "p applies to metric='minkowski' only; got metric="),
        ({"metric": "cosine", "p": 1}, "p applies to metric='minkowski' only; got metric="),
    ],
)
def test_metric_settings_are_checked(options, message):
    with pytest.raises(ParameterError, match=message):
        KNearestNeighbors(**options)
