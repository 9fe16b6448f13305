"""The range of row weights every weighted sum holds exactly (stats/weights.py): each weight 0
or at least 1e-9, summing to less than 1e12, and every class of a fit with a positive total.
Fits, updates, weighted measures and weighted cross-validation refuse anything else by name,
and fits at the bounds equal scikit-learn's."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from kinds_under_test import KIND_CLASSES
from sklearn import metrics as skm
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.preprocessing import OrdinalEncoder

import warehouse_ml as wml
from warehouse_ml.errors import DataError
from warehouse_ml.models.capabilities import WeightedFit
from warehouse_ml.stats.weights import MAX_TOTAL_WEIGHT, MIN_WEIGHT

WEIGHTED = [kind for kind in KIND_CLASSES if issubclass(kind, WeightedFit)]
"""The registered kinds that fit with weights."""


def rows(n: int = 300, seed: int = 4) -> pa.Table:
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n, p=[0.3, 0.7])
    return pa.table(
        {
            "y": y,
            "colour": rng.choice(["red", "green", "blue"], n),
            "shape": np.where(rng.random(n) < 0.7, np.where(y == "a", "round", "square"), "oval"),
            "size": rng.normal(0.0, 1.0, n) + (y == "a"),
            "w": np.ones(n),
        }
    )


def weighted(table: pa.Table, weights) -> pa.Table:
    return table.set_column(table.schema.get_field_index("w"), "w", pa.array(weights, pa.float64()))


def probabilities(con, model, table) -> np.ndarray:
    return np.column_stack(model.predict_proba(con, table).columns)


def test_fits_at_the_bounds_equal_scikit_learn(con):
    data = rows()
    n = data.num_rows
    # the smallest weight next to weights summing to just under the bound
    w = np.where(np.arange(n) % 3 == 0, MIN_WEIGHT, (MAX_TOTAL_WEIGHT * 0.99) / n)
    w[:2] = 0.0
    data = weighted(data, w)
    features = ["colour", "shape"]
    model = wml.NaiveBayes().fit(con, data, "y", features=features, sample_weight="w")
    x = np.column_stack([np.asarray(data[f].to_pylist(), dtype=object) for f in features])
    codes = OrdinalEncoder().fit_transform(x)
    oracle = CategoricalNB().fit(codes, np.asarray(data["y"].to_pylist()), sample_weight=w)
    assert np.allclose(probabilities(con, model, data), oracle.predict_proba(codes), rtol=1e-9)
    gaussian = wml.NaiveBayes().fit(con, data, "y", features=["size"], sample_weight="w")
    size = np.asarray(data["size"]).reshape(-1, 1)
    reference = GaussianNB().fit(size, np.asarray(data["y"].to_pylist()), sample_weight=w)
    moments = gaussian.parameters(con)["gaussian"].sort_by("class_index")
    assert np.allclose(moments["mean"].to_numpy(), reference.theta_[:, 0], rtol=1e-9)


@pytest.mark.parametrize("kind", WEIGHTED)
@pytest.mark.parametrize(
    "weight, message",
    [
        (1e-19, r"300 positive below 1e-09 value\(s\)"),
        (5e-10, r"300 positive below 1e-09 value\(s\)"),
        (1e21, r"the weights of its labelled rows sum to 3e\+23"),
        (MAX_TOTAL_WEIGHT / 300, "sum to 1e\\+12"),
    ],
)
def test_weights_no_exact_sum_holds_are_refused_by_name(con, kind, weight, message):
    data = weighted(rows(), np.full(300, weight))
    with pytest.raises(DataError, match=rf"sample_weight column 'w' of .*{message}.*1e\+12"):
        kind().fit(con, data, "y", sample_weight="w", name="m")
    assert wml.list_models(con).num_rows == 0


@pytest.mark.parametrize("kind", WEIGHTED)
def test_a_class_whose_rows_all_weigh_zero_is_refused(con, kind):
    data = rows()
    zero_a = weighted(data, np.where(np.asarray(data["y"]) == "a", 0.0, 1.0))
    with pytest.raises(
        DataError, match=r"classes \['a'\] of target column 'y' .*total weight of 0"
    ):
        kind().fit(con, zero_a, "y", sample_weight="w", name="m")
    with pytest.raises(DataError, match=r"classes \['a'\] .*class_weight \{'a': 0.0\}"):
        kind(class_weight={"a": 0}).fit(con, data, "y", name="m")
    with pytest.raises(DataError, match=r"classes \['a'\] .*total weight of 0"):
        wml.cross_validate(con, zero_a, "y", kind(), folds=3, sample_weight="w")
    assert wml.list_models(con).num_rows == 0


def test_updates_refuse_weights_and_classes_without_weight(con):
    data = rows()
    model = wml.TAN().fit(con, data, "y", features=["colour", "shape"], sample_weight="w", name="m")
    parameters = model.parameters(con)
    with pytest.raises(DataError, match=r"sample_weight column 'w' .*positive below 1e-09"):
        model.update(con, weighted(rows(50, 5), np.full(50, 1e-12)), batch_id="b")
    batch = rows(40, 6)
    batch = batch.set_column(0, "y", pa.array(["c"] * 20 + ["a"] * 20))
    batch = weighted(batch, [0.0] * 20 + [1.0] * 20)  # a new class c, all of it weighing 0
    with pytest.raises(DataError, match=r"classes \['c'\] .*total weight of 0"):
        model.update(con, batch, batch_id="b")
    model = wml.load(con, "m")
    assert model.batches_ == [] and model.classes_ == ["a", "b"]
    for part, table in parameters.items():
        assert model.parameters(con)[part].equals(table), part
    model.update(con, weighted(batch, [1.0] * 40), batch_id="b")  # the id was not used up
    assert model.classes_ == ["a", "b", "c"]


def scored(n: int = 200, seed: int = 1) -> pa.Table:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p1 = np.clip(rng.random(n) * 0.6 + y * 0.3, 0.01, 0.99)
    return pa.table({"y": y, "p0": 1 - p1, "p1": p1, "w": np.ones(n)})


@pytest.mark.parametrize(
    "weights, message",
    [
        (lambda n: np.where(np.arange(n) == 0, -1.0, 1.0), r"1 negative value\(s\)"),
        (lambda n: np.full(n, 1e-12), r"200 positive below 1e-09"),
        (lambda n: np.full(n, 1e21), r"sum to 2e\+23"),
        (lambda n: np.zeros(n), "is 0 on every row with a class"),
    ],
)
def test_weighted_measures_refuse_weights_by_name(con, weights, message):
    data = weighted(scored(), weights(200))
    probabilities_of = {0: "p0", 1: "p1"}
    for measure in (wml.accuracy, wml.log_score):
        with pytest.raises(DataError, match=rf"weight column 'w' of .*{message}"):
            measure(con, data, target="y", probabilities=probabilities_of, weight="w")


def test_weighted_measures_at_the_bounds_equal_scikit_learn(con):
    data = scored()
    w = np.where(np.arange(200) % 2 == 0, MIN_WEIGHT, 1e9)
    data = weighted(data, w)
    got = wml.log_score(con, data, target="y", probabilities={0: "p0", 1: "p1"}, weight="w")
    p = np.column_stack([data["p0"], data["p1"]])
    want = skm.log_loss(np.asarray(data["y"]), p, sample_weight=w)
    assert got.mean == pytest.approx(want, rel=1e-9)


def test_weighted_cross_validation_refuses_tiny_weights(con):
    data = weighted(rows(), np.full(300, 1e-12))
    with pytest.raises(DataError, match=r"sample_weight column 'w' .*positive below 1e-09"):
        wml.cross_validate(
            con, data, "y", wml.NaiveBayes(), folds=3, sample_weight="w", weighted_measures=True
        )
