"""k-NN's ``ties="all"`` (Weka's IBk: every stored row at a distance <= the k-th votes) against a
numpy reference written here, in every search (DuckDB's ranked one and its one-pass view, the
lateral top-k, the portable window), in ``explain`` and in ``select_k``.

The rows lie on a grid whose distances are small integers in every metric here, so that the
reference and the SQL see the same ties: a numeric attribute of values -1 and 1 as often each
(standardised: themselves; NULL: 0) and categorical attributes of a few levels (overlap 0/1).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.engines.duckdb import DuckDBWarehouse
from warehouse_ml.errors import ParameterError
from warehouse_ml.models.learners.neighbors.k_nearest_neighbors import KNearestNeighbors

PROBABILITIES = 1e-12


def grid(n: int, seed: int, unseen: bool = False) -> pa.Table:
    """``n`` rows (n a multiple of 4): ``size`` -1 and 1 as often each, NULL on every fifth
    pair of them; ``colour`` of three levels (NULL too, and an unseen level where
    ``unseen``); ``shape`` of two; a class of three values; a key ``id``."""
    rng = np.random.default_rng(seed)
    size = np.repeat([-1.0, 1.0], n // 2)
    missing = np.zeros(n, bool)
    missing[: n // 10] = missing[n // 2 : n // 2 + n // 10] = True
    order = rng.permutation(n)
    colours = ["red", "green", "blue", None, *(["violet"] if unseen else [])]
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "size": pa.array([None if missing[i] else size[i] for i in order], pa.float64()),
            "colour": pa.array([colours[v] for v in rng.integers(0, len(colours), n)]),
            "shape": pa.array([["round", "square"][v] for v in rng.integers(0, 2, n)]),
            "y": pa.array([f"c{v}" for v in rng.integers(0, 3, n)]),
        }
    )


def reduced(train: pa.Table, rows: pa.Table, p: float) -> np.ndarray:
    """Rows x stored rows: the sum of |difference| ** p (size: NULL 0; colour and shape:
    0 for the same value, 1 otherwise, an unseen value the same as NULL)."""
    a = np.nan_to_num(train["size"].to_numpy(zero_copy_only=False).astype(float))
    b = np.nan_to_num(rows["size"].to_numpy(zero_copy_only=False).astype(float))
    total = np.abs(b[:, None] - a[None, :]) ** p
    for name in ("colour", "shape"):
        seen = set(train[name].to_pylist())
        own = np.array(train[name].to_pylist(), object)
        scored = np.array([v if v in seen else None for v in rows[name].to_pylist()], object)
        total = total + (scored[:, None] != own[None, :])
    return total


def reference(train: pa.Table, rows: pa.Table, k: int, p: float, weights: str) -> np.ndarray:
    """IBk's votes renormalised: every stored row within the k-th smallest distance votes, 1
    each or 1 / distance (only the exact matches, 1 each, where there are any)."""
    d = reduced(train, rows, p)
    labels = np.array(train["y"].to_pylist())
    classes = sorted(set(labels))
    out = np.zeros((len(d), len(classes)))
    for i, row in enumerate(d):
        voters = row <= np.sort(row)[min(k, len(row)) - 1]
        weight = np.ones(len(row))
        if weights == "distance":
            weight = (row == 0).astype(float) if (row[voters] == 0).any() else row ** (-1 / p)
        for j, c in enumerate(classes):
            out[i, j] = weight[voters & (labels == c)].sum()
    return out / out.sum(axis=1, keepdims=True)


def probabilities(scores: pa.Table) -> np.ndarray:
    return np.column_stack([c.to_numpy() for c in scores.columns])


@pytest.fixture(scope="module")
def data():
    import duckdb

    con = duckdb.connect()
    train, scored = grid(240, 1), grid(60, 2, unseen=True)
    for name, rows in (("train", train), ("scored", scored)):
        con.register(f"arrow_{name}", rows)
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM arrow_{name}")
    yield con, train, scored
    con.close()


CASES = [
    ("euclidean", 2.0, 5, "uniform"),
    ("euclidean", 2.0, 1, "distance"),
    ("manhattan", 2.0, 4, "distance"),
    ("minkowski", 3.0, 7, "uniform"),
]


@pytest.mark.parametrize("metric, p, k, weights", CASES)
def test_every_row_within_the_kth_distance_votes_in_every_search(
    data, monkeypatch, metric, p, k, weights
):
    con, train, scored = data
    model = KNearestNeighbors(k=k, weights=weights, metric=metric, p=p, ties="all").fit(
        con, "train", "y", features=["size", "colour", "shape"], name="knn_all"
    )
    power = {"euclidean": 2.0, "manhattan": 1.0}.get(metric, p)
    expected = reference(train, scored, k, power, weights)
    got = probabilities(model.predict_proba(con, "scored"))
    np.testing.assert_allclose(got, expected, rtol=0, atol=PROBABILITIES)
    model.create_view(con, "all_scores", "scored", keys=["id"])
    viewed = con.sql("SELECT * FROM all_scores ORDER BY id").fetchall()
    np.testing.assert_array_equal(np.array([r[1:4] for r in viewed]), got)
    con.execute("DROP VIEW all_scores")
    explained = model.explain(con, "scored", keys=["id"])
    d = reduced(train, scored, power)
    for i in (0, 7, 33):
        mine = [r for r in explained.to_pylist() if r["id"] == i]
        row = d[i]
        within = row <= np.sort(row)[k - 1]
        assert len(mine) == within.sum()
        assert [r["rank"] for r in mine] == sorted(1 + (row < v).sum() for v in row[within])
    monkeypatch.setattr(DuckDBWarehouse, "TOP_K_AGGREGATE", False)
    monkeypatch.setattr(DuckDBWarehouse, "LATERAL_TOP_K", True)
    assert "LATERAL" in model.sql(con, "scored").upper()
    np.testing.assert_array_equal(probabilities(model.predict_proba(con, "scored")), got)
    assert model.explain(con, "scored", keys=["id"]).equals(explained)
    monkeypatch.setattr(DuckDBWarehouse, "LATERAL_TOP_K", False)
    np.testing.assert_array_equal(probabilities(model.predict_proba(con, "scored")), got)
    assert model.explain(con, "scored", keys=["id"]).equals(explained)


def test_the_key_rule_keeps_k_and_the_cosine_ties_agree_in_every_search(data, monkeypatch):
    """The default keeps exactly k neighbours where ``ties="all"`` keeps more; with the
    cosine, whose ties are not integers, every search gives the same votes."""
    con, _, scored = data
    options = {"features": ["size", "colour", "shape"]}
    key = KNearestNeighbors(k=3).fit(con, "train", "y", name="knn_key", **options)
    every = KNearestNeighbors(k=3, ties="all").fit(con, "train", "y", name="knn_every", **options)
    counts = [len(key.explain(con, "scored").to_pylist()), len(every.explain(con, "scored"))]
    assert counts[0] == 3 * 60 < counts[1]
    model = KNearestNeighbors(k=4, weights="distance", metric="cosine", ties="all")
    model.fit(con, "train", "y", name="knn_cosine", **options)
    model.create_view(con, "cosine_scores", "scored", keys=["id"])
    viewed = np.array(
        [r[1:4] for r in con.sql("SELECT * FROM cosine_scores ORDER BY id").fetchall()]
    )
    got = probabilities(model.predict_proba(con, "scored"))
    np.testing.assert_array_equal(viewed, got)
    monkeypatch.setattr(DuckDBWarehouse, "TOP_K_AGGREGATE", False)
    monkeypatch.setattr(DuckDBWarehouse, "LATERAL_TOP_K", True)
    np.testing.assert_array_equal(probabilities(model.predict_proba(con, "scored")), got)
    monkeypatch.setattr(DuckDBWarehouse, "LATERAL_TOP_K", False)
    np.testing.assert_array_equal(probabilities(model.predict_proba(con, "scored")), got)


def test_select_k_with_every_tie_equals_cross_validating_each_k(data):
    con, _, _ = data
    options = {"folds": 4, "seed": 5, "key": "id", "features": ["size", "colour", "shape"]}
    chosen = wml.select_k(con, "train", "y", [1, 4, 7], ties="all", name="chosen", **options)
    assert chosen.model.ties == "all"
    for row in chosen.comparison.to_pylist():
        model = KNearestNeighbors(k=row["k"], ties="all")
        evaluation = wml.cross_validate(con, "train", "y", model, **options)
        assert row["error"] == pytest.approx(1 - evaluation.accuracy().accuracy, abs=1e-15)


def test_the_tie_rule_is_checked():
    with pytest.raises(ParameterError, match="ties must be one of 'key', 'all', got 'every'"):
        KNearestNeighbors(ties="every")
