"""Weighted measures (weight=column): every measure counts each row as its weight, against
scikit-learn's metrics with sample_weight and numpy references; a weight of 1 changes nothing;
a weighted cross-validation's evaluation measures with its sample weights."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from sklearn import metrics as skm

import warehouse_ml as wml

TOL = 1e-9


def scored(n: int = 400, seed: int = 1, classes: int = 2) -> pa.Table:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    raw = rng.random((n, classes)) + np.eye(classes)[y] * 0.6
    raw[:20] = np.round(raw[:20], 1)  # ties
    p = raw / raw.sum(1, keepdims=True)
    columns = {"y": y, **{f"p{c}": p[:, c] for c in range(classes)}}
    columns["w"] = rng.exponential(1.0, n) * (rng.random(n) > 0.05)
    return pa.table(columns)


def columns(table: pa.Table, classes: int = 2) -> dict:
    return {"target": "y", "probabilities": {c: f"p{c}" for c in range(classes)}, "weight": "w"}


def test_binary_measures_equal_scikit_learn_with_sample_weight(con):
    data = scored()
    y, p1, w = np.asarray(data["y"]), np.asarray(data["p1"]), np.asarray(data["w"])
    predicted = (p1 > np.asarray(data["p0"])).astype(int)
    given = columns(data)
    accuracy = wml.accuracy(con, data, **given)
    assert accuracy.n == pytest.approx(w.sum(), rel=TOL)
    assert accuracy.accuracy == pytest.approx(
        skm.accuracy_score(y, predicted, sample_weight=w), abs=TOL
    )
    assert accuracy.kappa == pytest.approx(
        skm.cohen_kappa_score(y, predicted, sample_weight=w), abs=TOL
    )
    cells = wml.confusion_matrix(con, data, **given).to_pylist()
    matrix = skm.confusion_matrix(y, predicted, sample_weight=w)
    for cell in cells:
        assert cell["n"] == pytest.approx(
            matrix[cell["true_index"], cell["predicted_index"]], rel=TOL
        )
    per_class = wml.class_measures(con, data, **given).to_pylist()
    precision, recall, f, support = skm.precision_recall_fscore_support(
        y, predicted, sample_weight=w
    )
    for row in per_class:
        c = row["class_index"]
        assert (row["precision"], row["recall"], row["f_measure"]) == pytest.approx(
            (precision[c], recall[c], f[c]), abs=TOL
        )
        assert row["support"] == pytest.approx(support[c], rel=TOL)
    assert wml.roc_auc(con, data, positive=1, **given).auc == pytest.approx(
        skm.roc_auc_score(y, p1, sample_weight=w), abs=TOL
    )
    fpr, tpr, _ = skm.roc_curve(y, p1, sample_weight=w, drop_intermediate=False)
    curve = wml.roc_curve(con, data, positive=1, **given)

    def points(x, z):  # scikit-learn leaves out scores of weight 0: the same points, once each
        return {(round(a, 12), round(b, 12)) for a, b in zip(x, z, strict=True)}

    assert points(curve["fpr"].to_numpy(), curve["tpr"].to_numpy()) == points(fpr, tpr)
    assert wml.average_precision(con, data, positive=1, **given).average_precision == pytest.approx(
        skm.average_precision_score(y, p1, sample_weight=w), abs=TOL
    )
    probabilities = np.column_stack([data["p0"], data["p1"]])
    assert wml.log_score(con, data, **given).mean == pytest.approx(
        skm.log_loss(y, probabilities, sample_weight=w), abs=TOL
    )
    assert wml.brier_score(con, data, **given).mean == pytest.approx(
        skm.brier_score_loss(y, p1, sample_weight=w), abs=TOL
    )


def test_multiclass_and_decision_measures(con):
    data = scored(300, seed=2, classes=3)
    y, w = np.asarray(data["y"]), np.asarray(data["w"])
    probabilities = np.column_stack([data[f"p{c}"] for c in range(3)])
    given = columns(data, 3)
    averaged = wml.averaged_measures(con, data, **given).to_pylist()
    predicted = probabilities.argmax(1)
    macro = skm.precision_recall_fscore_support(y, predicted, sample_weight=w, average="macro")
    row = next(r for r in averaged if r["average"] == "macro")
    assert (row["precision"], row["recall"], row["f_measure"]) == pytest.approx(macro[:3], abs=TOL)
    ovr = wml.ovr_auc(con, data, **given)
    assert ovr.macro_auc == pytest.approx(
        skm.roc_auc_score(y, probabilities, multi_class="ovr", average="macro", sample_weight=w),
        abs=TOL,
    )
    loss = [[0, 1, 2], [1, 0, 1], [4, 1, 0]]
    summary = wml.expected_loss(con, data, loss=loss, **given)
    incurred = np.array(loss)[y, predicted]
    assert summary.prediction_loss == pytest.approx(np.average(incurred, weights=w), abs=TOL)
    expected = (probabilities @ np.array(loss)).min(1)
    assert summary.expected_loss == pytest.approx(np.average(expected, weights=w), abs=TOL)


def test_calibration_and_lift_count_weights(con):
    data = scored(500, seed=3)
    y, p1, w = np.asarray(data["y"]), np.asarray(data["p1"]), np.asarray(data["w"])
    bins = wml.calibration(con, data, positive=1, bins=5, **columns(data)).to_pylist()
    index = np.clip(np.ceil(p1 * 5) - 1, 0, 4).astype(int)
    for row in bins:
        inside = index == row["bin"]
        assert row["n"] == pytest.approx(w[inside].sum(), rel=TOL)
        assert row["mean_predicted"] == pytest.approx(
            np.average(p1[inside], weights=w[inside]), abs=TOL
        )
        assert row["observed"] == pytest.approx(np.average(y[inside], weights=w[inside]), abs=TOL)
    lift = wml.lift_table(con, data, positive=1, quantiles=[0.5], **columns(data)).to_pylist()
    order = np.lexsort((w, y, -p1))  # decreasing score, negatives first, then weight
    cumulative = np.cumsum(w[order])
    first = cumulative <= np.floor(0.5 * w.sum() + 0.5)
    assert lift[0]["size"] == pytest.approx(w[order][first].sum(), rel=TOL)
    assert lift[0]["positives"] == pytest.approx((w * y)[order][first].sum(), rel=TOL)
    assert lift[-1]["cumulative_size"] == pytest.approx(w.sum(), rel=TOL)


def test_unit_weights_change_nothing(con):
    data = scored(200, seed=4)
    ones = data.set_column(data.schema.get_field_index("w"), "w", pa.array(np.ones(200)))
    plain = {"target": "y", "probabilities": {0: "p0", 1: "p1"}}
    assert wml.roc_auc(con, ones, positive=1, weight="w", **plain).auc == pytest.approx(
        wml.roc_auc(con, data, positive=1, **plain).auc, abs=1e-15
    )
    assert wml.log_score(con, ones, weight="w", **plain).mean == pytest.approx(
        wml.log_score(con, data, **plain).mean, abs=1e-15
    )


def test_a_weighted_cross_validation_measures_with_its_weights(con):
    rng = np.random.default_rng(6)
    n = 400
    y = rng.choice(["a", "b"], n)
    data = pa.table(
        {
            "id": np.arange(n),
            "y": y,
            "x": np.where(rng.random(n) < 0.75, y, rng.choice(["a", "b"], n)),
            "w": rng.uniform(0.1, 3.0, n),
        }
    )
    with wml.cross_validate(
        con, data, "y", wml.NaiveBayes(), folds=4, key="id", sample_weight="w",
        weighted_measures=True,
    ) as ev:  # fmt: skip
        rows = con.sql(f"SELECT * FROM {ev.predictions} ORDER BY id").to_arrow_table()
        assert "weight" in rows.column_names and ev.weight == "weight"
        truth = np.asarray(rows["y"])
        predicted = np.asarray(rows["prediction"])
        weights = np.asarray(rows["weight"])
        assert np.allclose(weights, np.asarray(data["w"]))
        assert ev.accuracy().accuracy == pytest.approx(
            skm.accuracy_score(truth, predicted, sample_weight=weights), abs=TOL
        )
        assert ev.auc("b").auc == pytest.approx(
            skm.roc_auc_score(truth == "b", np.asarray(rows["p_b"]), sample_weight=weights), abs=TOL
        )
    with pytest.raises(wml.ParameterError, match="needs the sample_weight column"):
        wml.cross_validate(con, data, "y", wml.NaiveBayes(), key="id", weighted_measures=True)
