"""Weighted fits: sample_weight and class_weight against scikit-learn's CategoricalNB and
GaussianNB with sample_weight (1e-9), "balanced" against compute_sample_weight, and TAN
against a fit on rows repeated as many times as their integer weight."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from conftest import load_text_csv
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.preprocessing import OrdinalEncoder
from sklearn.utils.class_weight import compute_sample_weight

import warehouse_ml as wml
from warehouse_ml.errors import ColumnError, DataError, ParameterError


def probabilities(con, model, rows) -> np.ndarray:
    return np.column_stack(model.predict_proba(con, rows).columns)


def categorical_oracle(table: pa.Table, target: str, features, weights, alpha=1.0):
    """scikit-learn's CategoricalNB on the ordinal codes of the features (NULL as its own
    category is not modelled: the tables here have none)."""
    x = np.column_stack([np.asarray(table[f].to_pylist(), dtype=object) for f in features])
    codes = OrdinalEncoder().fit_transform(x)
    y = np.asarray(table[target].to_pylist(), dtype=object)
    return CategoricalNB(alpha=alpha).fit(codes, y, sample_weight=weights), codes


def mixed(n: int = 600, seed: int = 3) -> pa.Table:
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n, p=[0.15, 0.55, 0.3])
    return pa.table(
        {
            "y": y,
            "colour": rng.choice(["red", "green", "blue"], n),
            "shape": np.where(rng.random(n) < 0.7, np.where(y == "a", "round", "square"), "oval"),
            "w": rng.exponential(1.0, n) * (rng.random(n) > 0.05),  # some zero weights
            "k": rng.integers(0, 4, n),
        }
    )


def test_categorical_sample_weight_equals_scikit_learn(con):
    data = mixed()
    model = wml.NaiveBayes(alpha=0.5).fit(
        con, data, "y", features=["colour", "shape"], sample_weight="w"
    )
    oracle, codes = categorical_oracle(data, "y", ["colour", "shape"], np.asarray(data["w"]), 0.5)
    assert np.allclose(
        probabilities(con, model, data), oracle.predict_proba(codes), rtol=1e-9, atol=1e-12
    )
    classes = model.parameters(con)["classes"]
    assert np.allclose(classes["n"].to_numpy(), oracle.class_count_, rtol=1e-12)
    assert np.allclose(classes["log_prior"].to_numpy(), oracle.class_log_prior_, rtol=1e-12)
    assert model.n_rows_ == data.num_rows and list(model.record.state.class_rows) == [
        int(np.sum(np.asarray(data["y"]) == c)) for c in ("a", "b", "c")
    ]
    assert model.record.state.weighting.to_json() == {"sample_weight": "w", "class_weights": {}}


def test_gaussian_sample_weight_equals_scikit_learn_with_its_unweighted_floor(con):
    rng = np.random.default_rng(5)
    n = 400
    y = rng.choice(["p", "q"], n)
    x = np.column_stack([rng.normal(0, 1, n) + (y == "p"), rng.normal(50, 20, n)])
    w = rng.uniform(0, 3, n)
    data = pa.table({"y": y, "x0": x[:, 0], "x1": x[:, 1], "w": w})
    for smoothing in (1e-9, 0.05):  # 0.05: the floor is large enough to tell the two apart
        model = wml.NaiveBayes(var_smoothing=smoothing).fit(con, data, "y", sample_weight="w")
        oracle = GaussianNB(var_smoothing=smoothing).fit(x, y, sample_weight=w)
        gaussian = model.parameters(con)["gaussian"].sort_by(
            [("attribute", "ascending"), ("class_index", "ascending")]
        )
        assert np.allclose(gaussian["mean"].to_numpy(), oracle.theta_.T.ravel(), rtol=1e-9)
        assert np.allclose(gaussian["variance"].to_numpy(), oracle.var_.T.ravel(), rtol=1e-9)
        assert np.allclose(
            gaussian["n"].to_numpy(),
            np.repeat(oracle.class_count_[None, :], 2, 0).ravel(),
            rtol=1e-12,
        )
        assert np.allclose(
            probabilities(con, model, data), oracle.predict_proba(x), rtol=1e-9, atol=1e-12
        )


def test_balanced_and_mapped_class_weights(con):
    data = mixed(seed=8)
    y = np.asarray(data["y"])
    features = ["colour", "shape"]
    balanced = wml.NaiveBayes(class_weight="balanced").fit(con, data, "y", features=features)
    oracle, codes = categorical_oracle(data, "y", features, compute_sample_weight("balanced", y))
    assert np.allclose(
        probabilities(con, balanced, data), oracle.predict_proba(codes), rtol=1e-9, atol=1e-12
    )
    mapped = wml.NaiveBayes(class_weight={"a": 4, "c": 0.5}).fit(
        con, data, "y", features=features, sample_weight="w"
    )
    weights = np.asarray(data["w"]) * np.select([y == "a", y == "c"], [4.0, 0.5], 1.0)
    oracle, codes = categorical_oracle(data, "y", features, weights)
    assert np.allclose(
        probabilities(con, mapped, data), oracle.predict_proba(codes), rtol=1e-9, atol=1e-12
    )
    assert wml.load(con, mapped.name_).get_params()["class_weight"] == {"a": 4.0, "c": 0.5}


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
def test_integer_weights_equal_repeated_rows(con, kind):
    """A row of weight k counts as k rows: TAN's counts, CMI, tree and CPTs, and NB's
    Gaussian moments, equal a fit on the rows repeated (their bins too: TAN here has no
    numeric attribute)."""
    data = mixed(300, seed=11)
    times = np.asarray(data["k"])
    repeated = data.take(np.repeat(np.arange(data.num_rows), times))
    features = ["colour", "shape"]
    weighted = kind().fit(con, data, "y", features=features, sample_weight="k", name="w")
    plain = kind().fit(con, repeated, "y", features=features, name="r")
    for part, table in plain.parameters(con).items():
        other = weighted.parameters(con)[part]
        for name in table.column_names:
            a, b = other[name].to_pylist(), table[name].to_pylist()
            if isinstance(b[0], (int, float)) and not isinstance(b[0], bool):
                assert np.allclose(
                    np.array(a, float), np.array(b, float), rtol=1e-12, equal_nan=True
                ), (part, name)
            else:
                assert a == b, (part, name)
    assert np.allclose(
        probabilities(con, weighted, data), probabilities(con, plain, data), rtol=1e-12
    )
    if kind is wml.TAN:
        assert weighted.parents_ == plain.parents_


def test_weighted_tan_on_weights_that_change_the_tree(con):
    rng = np.random.default_rng(2)
    n = 400
    y = rng.choice(["p", "q"], n)
    x = rng.choice(["0", "1"], n)
    noise = rng.choice(["0", "1"], n)
    half = np.arange(n) < n // 2
    # x copies into w in the first half and into z in the second: weights pick the half
    data = pa.table({"y": y, "x": x, "w": np.where(half, x, noise), "z": np.where(half, noise, x)})
    first = data.append_column("weight", pa.array(np.where(half, 10.0, 0.1)))
    second = data.append_column("weight", pa.array(np.where(half, 0.1, 10.0)))
    assert wml.TAN().fit(con, first, "y", sample_weight="weight").parents_["w"] == "x"
    assert wml.TAN().fit(con, second, "y", sample_weight="weight").parents_["z"] == "x"


def test_car_and_vote_with_weights(con, datasets):
    for name, target in (("car", "class"), ("vote", "Class")):
        load_text_csv(con, name, datasets / f"{name}.csv")
        table = con.table(name).to_arrow_table().drop_null()  # CategoricalNB has no NULLs
        rng = np.random.default_rng(len(name))
        weights = rng.uniform(0, 2, table.num_rows)
        data = table.append_column("weight", pa.array(weights))
        features = [c for c in table.column_names if c != target]
        model = wml.NaiveBayes().fit(con, data, target, features=features, sample_weight="weight")
        oracle, codes = categorical_oracle(table, target, features, weights)
        assert np.allclose(
            probabilities(con, model, data), oracle.predict_proba(codes), rtol=1e-9, atol=1e-12
        ), name


@pytest.mark.parametrize(
    "weights, error, message",
    [
        ([1.0, None, 2.0, 1.0], DataError, "1 null value"),
        ([1.0, -1.0, 2.0, 1.0], DataError, "1 negative value"),
        ([1.0, float("nan"), 2.0, 1.0], DataError, "1 not finite value"),
        (["1", "1", "1", "1"], ColumnError, "expected a numeric column"),
    ],
)
def test_bad_sample_weights_are_refused_by_name(con, weights, error, message):
    data = pa.table({"y": ["a", "b", "a", "b"], "x": ["p", "q", "p", "q"], "wt": weights})
    with pytest.raises(error, match=f"sample_weight column 'wt'.*{message}"):
        wml.NaiveBayes().fit(con, data, "y", sample_weight="wt")
    assert wml.list_models(con).num_rows == 0


def test_a_null_weight_on_an_unlabelled_row_is_ignored(con):
    data = pa.table({"y": ["a", "b", None], "x": ["p", "q", "p"], "wt": [1.0, 2.0, None]})
    model = wml.NaiveBayes().fit(con, data, "y", sample_weight="wt")
    assert model.feature_names_in_ == ["x"] and model.n_null_target_ == 1


@pytest.mark.parametrize(
    "class_weight, message",
    [
        ({"z": 2.0}, r"names \['z'\], which are not classes"),
        ({"a": -1}, "must be a finite number >= 0"),
        ("even", "class_weight must be None, 'balanced' or a mapping"),
    ],
)
def test_bad_class_weights_are_refused(con, class_weight, message):
    data = pa.table({"y": ["a", "b"] * 5, "x": ["p", "q"] * 5})
    with pytest.raises(ParameterError, match=message):
        wml.NaiveBayes(class_weight=class_weight).fit(con, data, "y")


def _fold_oracle(con, ev, data: pa.Table, fit_fold) -> None:
    """Each fold's predictions equal ``fit_fold(training rows)`` scoring the held-out rows."""
    predictions = con.sql(f"SELECT * FROM {ev.predictions} ORDER BY id").to_arrow_table()
    columns = [c for c in predictions.column_names if c.startswith("p_")]
    folds = np.asarray(predictions["fold"])
    ids = np.asarray(predictions["id"])
    for f in np.unique(folds):
        held = np.isin(np.asarray(data["id"]), ids[folds == f])
        want = fit_fold(data.filter(pa.array(~held)), data.filter(pa.array(held)))
        got = np.column_stack([predictions[c].to_numpy()[folds == f] for c in columns])
        assert np.allclose(got, want, rtol=1e-9, atol=1e-12), f


def test_weighted_cross_validation_equals_weighted_fits_of_each_fold(con):
    data = mixed(500, seed=4).append_column("id", pa.array(np.arange(500)))
    rng = np.random.default_rng(1)
    data = data.append_column("g", pa.array(rng.normal(0, 1, 500) + (np.asarray(data["y"]) == "a")))
    features = ["colour", "shape", "g"]
    for model in (wml.NaiveBayes(), wml.NaiveBayes(class_weight={"a": 3.0}), wml.TAN()):
        ev = wml.cross_validate(
            con, data, "y", model, folds=4, key="id", features=features, sample_weight="w"
        )

        def fit_fold(train, held, model=model):
            fitted = type(model)(**model.get_params()).fit(
                con, train, "y", features=features, sample_weight="w", name=f"fold_{model.kind}"
            )
            return probabilities(con, fitted, held.sort_by("id"))

        _fold_oracle(con, ev, data, fit_fold)
        ev.drop()


def test_leave_one_out_of_a_weighted_model_is_refused(con):
    data = mixed(30, seed=2)
    with pytest.raises(ParameterError, match="subtracts each row's count of 1, not a weight"):
        wml.cross_validate(con, data, "y", wml.NaiveBayes(), folds=30, sample_weight="w")


def test_weighted_updates_equal_a_weighted_fit_on_the_union(con):
    first, second = mixed(300, seed=5), mixed(200, seed=6)
    features = ["colour", "shape"]
    for model in (wml.NaiveBayes(class_weight={"a": 2.0}), wml.TAN()):
        model.fit(con, first, "y", features=features, sample_weight="w", name=model.kind)
        model.update(con, second, batch_id="b")
        union = pa.concat_tables([first, second])
        oracle = type(model)(**model.get_params()).fit(
            con, union, "y", features=features, sample_weight="w", name=f"o_{model.kind}"
        )
        for part, table in oracle.parameters(con).items():
            assert model.parameters(con)[part].num_rows == table.num_rows, part
        assert np.allclose(
            probabilities(con, model, union), probabilities(con, oracle, union), rtol=1e-9
        )
        assert model.n_rows_ == 500
        assert model.record.state.class_rows == oracle.record.state.class_rows


def test_updates_that_cannot_stay_exact_under_weights_are_refused(con):
    data = mixed(200, seed=7)
    balanced = wml.NaiveBayes(class_weight="balanced").fit(
        con, data, "y", features=["colour"], name="b"
    )
    with pytest.raises(wml.IncompatibleModelError, match="'balanced' class weights"):
        balanced.update(con, data, batch_id="x")
    gaussian = wml.NaiveBayes().fit(con, data, "y", features=["w"], sample_weight="k", name="g")
    with pytest.raises(wml.IncompatibleModelError, match="variance floor"):
        gaussian.update(con, data, batch_id="x")


def test_iris_and_diabetes_gaussian_with_weights(con, datasets):
    for name in ("iris", "diabetes"):
        table = con.read_csv(str(datasets / f"{name}.csv")).to_arrow_table()
        features = [c for c in table.column_names if c != "class"]
        rng = np.random.default_rng(len(name))
        weights = rng.uniform(0, 2, table.num_rows)
        data = table.append_column("weight", pa.array(weights))
        model = wml.NaiveBayes().fit(
            con, data, "class", features=features, numeric=features, sample_weight="weight"
        )
        x = np.column_stack([np.asarray(table[f], dtype=float) for f in features])
        oracle = GaussianNB().fit(x, np.asarray(table["class"]), sample_weight=weights)
        got = probabilities(con, model, data)
        assert np.allclose(got, oracle.predict_proba(x), rtol=1e-9, atol=1e-12), name
