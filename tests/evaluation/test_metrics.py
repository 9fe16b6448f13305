"""Evaluation measures in SQL against the worked examples, scikit-learn and brute force."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples
from sklearn import metrics as skm

import warehouse_ml as wml
from warehouse_ml.errors import ColumnError, ParameterError
from warehouse_ml.evaluation import metrics

TOL = 1e-9
BINARY = {0: "p0", 1: "p1"}


def binary_table(y, p1, prediction=None) -> pa.Table:
    columns = {"y": list(y), "p0": [1.0 - p for p in p1], "p1": [float(p) for p in p1]}
    if prediction is not None:
        columns["pred"] = list(prediction)
    return pa.table(columns)


# -- worked examples (docs/ARCHITECTURE.md, "Measures") ---------------------------------------
def test_lift_worked_example(con):
    p = [0.96, 0.91, 0.86, 0.83, 0.74, 0.55, 0.51, 0.42, 0.11, 0.06]
    truth = ["yes", "yes", "no", "yes", "yes", "no", "yes", "no", "no", "no"]
    data = pa.table({"truth": truth, "p_no": [1 - x for x in p], "p_yes": p})
    table = wml.lift_table(con, data, target="truth", positive="yes", quantiles=[0.4])
    first = table.to_pylist()[0]
    assert (first["size"], first["positives"]) == (4, 3)
    assert first["accuracy"] == pytest.approx(0.75, abs=TOL)
    assert first["lift"] == pytest.approx(1.5, abs=TOL)
    deciles = wml.lift_table(con, data, target="truth", positive="yes").to_pylist()
    assert len(deciles) == 10
    assert deciles[3]["cumulative_lift"] == pytest.approx(1.5, abs=TOL)
    assert deciles[-1]["gain"] == pytest.approx(1.0, abs=TOL)
    assert [r["cumulative_size"] for r in deciles] == list(range(1, 11))


def test_wilson_interval_for_70_of_100(con):
    truth = [1] * 50 + [0] * 50
    predicted = [1] * 35 + [0] * 15 + [0] * 35 + [1] * 15  # 70 correct
    data = binary_table(truth, [0.5] * 100, predicted)
    result = wml.accuracy(con, data, target="y", probabilities=BINARY, prediction="pred")
    assert (result.n, result.correct) == (100, 70)
    assert result.accuracy == pytest.approx(0.7, abs=TOL)
    assert result.error == pytest.approx(0.3, abs=TOL)
    assert round(result.accuracy_low, 3) == 0.604
    assert round(result.accuracy_high, 3) == 0.781
    z = 1.959963984540054
    n, a = 100, 0.7
    root = z * math.sqrt(z * z + 4 * n * a - 4 * n * a * a)
    assert result.accuracy_low == pytest.approx(
        (2 * n * a + z * z - root) / (2 * (n + z * z)), abs=TOL
    )
    wider = wml.accuracy(con, data, target="y", probabilities=BINARY, prediction="pred", level=0.99)
    assert wider.accuracy_low < result.accuracy_low and wider.accuracy_high > result.accuracy_high


def test_log_and_brier_scores_worked_example(con):
    data = binary_table([0, 1, 0, 1, 1], [0.1, 0.4, 0.5, 0.8, 0.1])
    log = wml.log_score(con, data, target="y", probabilities=BINARY)
    assert round(log.total, 2) == 4.24 and log.n == 5
    assert log.mean == pytest.approx(log.total / 5, abs=TOL)
    brier = wml.brier_score(con, data, target="y", probabilities=BINARY)
    assert brier.mean == pytest.approx(0.294, abs=TOL)


@pytest.mark.parametrize(
    ("flagged", "hits", "precision", "recall"), [(54, 18, 1 / 3, 0.9), (16, 14, 0.875, 0.7)]
)
def test_precision_recall_worked_examples(con, flagged, hits, precision, recall):
    n = 200
    truth = [1] * 20 + [0] * (n - 20)
    predicted = (
        [1] * hits + [0] * (20 - hits) + [1] * (flagged - hits) + [0] * (n - 20 - flagged + hits)
    )
    data = binary_table(truth, [0.5] * n, predicted)
    row = wml.class_measures(
        con, data, target="y", probabilities=BINARY, prediction="pred"
    ).to_pylist()[1]
    assert row["precision"] == pytest.approx(precision, abs=TOL)
    assert row["recall"] == pytest.approx(recall, abs=TOL)
    assert row["f_measure"] == pytest.approx(2 * precision * recall / (precision + recall), abs=TOL)


def test_expected_loss_decisions(con):
    data = binary_table([0, 1, 0, 1, 1], [0.1, 0.4, 0.5, 0.8, 0.1])
    loss = [[0, 1], [5, 0]]  # a missed positive costs 5
    data = data.append_column("id", pa.array(range(5)))
    rows = wml.loss_decisions(
        con, data, target="y", probabilities=BINARY, loss=loss, keys=["id"]
    ).to_pylist()
    decisions = sorted(rows, key=lambda r: r["id"])
    p1 = [0.1, 0.4, 0.5, 0.8, 0.1]
    for row, p in zip(decisions, p1, strict=True):
        costs = [5 * p, 1 - p]  # expected loss of predicting 0, of predicting 1
        best = int(np.argmin(costs))
        assert row["decision_index"] == best
        assert row["expected_loss"] == pytest.approx(costs[best], abs=TOL)
    summary = wml.expected_loss(con, data, target="y", probabilities=BINARY, loss=loss)
    truth = [0, 1, 0, 1, 1]
    argmax = [0, 0, 0, 1, 0]  # ties (0.5/0.5) go to the first class
    assert summary.prediction_loss == pytest.approx(
        np.mean([loss[t][q] for t, q in zip(truth, argmax, strict=True)]), abs=TOL
    )
    chosen = [r["decision_index"] for r in decisions]
    assert summary.decision_loss == pytest.approx(
        np.mean([loss[t][q] for t, q in zip(truth, chosen, strict=True)]), abs=TOL
    )
    assert summary.expected_loss == pytest.approx(
        np.mean([r["expected_loss"] for r in decisions]), abs=TOL
    )


# -- against scikit-learn on tie-heavy random predictions -----------------------------------
SCORES = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.75, 0.9, 1.0])


@st.composite
def binary_cases(draw):
    n = draw(st.integers(min_value=4, max_value=40))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    if len(set(y)) < 2:
        y[0], y[1] = 0, 1
    p = draw(st.lists(SCORES, min_size=n, max_size=n))
    return y, p


def brute_force_auc(y, p) -> float:
    pos = [s for s, t in zip(p, y, strict=True) if t == 1]
    neg = [s for s, t in zip(p, y, strict=True) if t == 0]
    wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


@pytest.mark.slow
@settings(
    max_examples=examples(25),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=binary_cases())
def test_binary_measures_equal_scikit_learn(con, case):
    y, p = case
    y_arr, p_arr = np.array(y), np.array(p)
    data = binary_table(y, p)

    auc = wml.roc_auc(con, data, target="y", probabilities=BINARY)
    assert auc.auc == pytest.approx(skm.roc_auc_score(y_arr, p_arr), abs=TOL)
    assert auc.auc == pytest.approx(brute_force_auc(y, p), abs=TOL)

    roc = wml.roc_curve(con, data, target="y", probabilities=BINARY)
    fpr, tpr, thresholds = skm.roc_curve(y_arr, p_arr, drop_intermediate=False)
    assert np.allclose(roc.column("fpr").to_numpy(), fpr, atol=TOL)
    assert np.allclose(roc.column("tpr").to_numpy(), tpr, atol=TOL)
    assert np.allclose(
        roc.column("threshold").to_numpy(zero_copy_only=False)[1:], thresholds[1:], atol=TOL
    )
    trapezoid = float(np.trapezoid(roc.column("tpr").to_numpy(), roc.column("fpr").to_numpy()))
    assert trapezoid == pytest.approx(auc.auc, abs=TOL)

    pr = wml.precision_recall_curve(con, data, target="y", probabilities=BINARY)
    precision, recall, _ = skm.precision_recall_curve(y_arr, p_arr)
    assert np.allclose(pr.column("precision").to_numpy()[::-1], precision, atol=TOL)
    assert np.allclose(pr.column("recall").to_numpy()[::-1], recall, atol=TOL)

    ap = wml.average_precision(con, data, target="y", probabilities=BINARY)
    assert ap.average_precision == pytest.approx(skm.average_precision_score(y_arr, p_arr), abs=TOL)
    expected_three = np.mean([max(precision[recall >= r]) for r in (0.2, 0.5, 0.8)])
    assert ap.interpolated_average_precision == pytest.approx(expected_three, abs=TOL)

    probs = np.column_stack([1 - p_arr, p_arr])
    assert wml.log_score(con, data, target="y", probabilities=BINARY).mean == pytest.approx(
        skm.log_loss(y_arr, probs, labels=[0, 1]), abs=TOL
    )
    assert wml.brier_score(con, data, target="y", probabilities=BINARY).mean == pytest.approx(
        skm.brier_score_loss(y_arr, p_arr), abs=TOL
    )

    predicted = probs.argmax(axis=1)  # ties to the first class, as in SQL
    cells = wml.confusion_matrix(con, data, target="y", probabilities=BINARY)
    assert (
        cells.column("n").to_pylist()
        == skm.confusion_matrix(y_arr, predicted, labels=[0, 1]).ravel().tolist()
    )
    summary = wml.accuracy(con, data, target="y", probabilities=BINARY)
    assert summary.accuracy == pytest.approx(skm.accuracy_score(y_arr, predicted), abs=TOL)
    kappa = skm.cohen_kappa_score(y_arr, predicted, labels=[0, 1])
    if math.isnan(kappa):
        assert summary.kappa is None
    else:
        assert summary.kappa == pytest.approx(kappa, abs=TOL)


@st.composite
def multiclass_cases(draw):
    k = draw(st.integers(min_value=3, max_value=4))
    n = draw(st.integers(min_value=k + 2, max_value=40))
    y = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    y[:k] = list(range(k))  # every class present
    weights = draw(
        st.lists(st.lists(st.integers(0, 3), min_size=k, max_size=k), min_size=n, max_size=n)
    )
    rows = [[w + 1 if sum(ws) == 0 else w for w in ws] for ws in weights]
    probs = np.array(rows, dtype=float)
    probs = probs / probs.sum(axis=1, keepdims=True)
    return np.array(y), probs


@pytest.mark.slow
@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(case=multiclass_cases())
def test_multiclass_measures_equal_scikit_learn(con, case):
    y, probs = case
    k = probs.shape[1]
    labels = [f"c{i}" for i in range(k)]
    truth = [labels[i] for i in y]
    data = pa.table({"truth": truth, **{f"p_{labels[i]}": probs[:, i] for i in range(k)}})

    ovr = wml.ovr_auc(con, data, target="truth")
    assert ovr.macro_auc == pytest.approx(
        skm.roc_auc_score(y, probs, multi_class="ovr", average="macro"), abs=TOL
    )
    assert ovr.weighted_auc == pytest.approx(
        skm.roc_auc_score(y, probs, multi_class="ovr", average="weighted"), abs=TOL
    )
    for i in range(k):
        assert ovr.per_class.column("auc")[i].as_py() == pytest.approx(
            brute_force_auc((y == i).astype(int), probs[:, i]), abs=TOL
        )

    assert wml.log_score(con, data, target="truth").mean == pytest.approx(
        skm.log_loss(y, probs, labels=range(k)), abs=TOL
    )
    assert wml.brier_score(con, data, target="truth").mean == pytest.approx(
        skm.brier_score_loss(y, probs, labels=list(range(k))), abs=TOL
    )

    predicted = probs.argmax(axis=1)
    cells = wml.confusion_matrix(con, data, target="truth")
    assert (
        cells.column("n").to_pylist()
        == skm.confusion_matrix(y, predicted, labels=range(k)).ravel().tolist()
    )
    summary = wml.accuracy(con, data, target="truth")
    assert summary.accuracy == pytest.approx(skm.accuracy_score(y, predicted), abs=TOL)
    kappa = skm.cohen_kappa_score(y, predicted, labels=list(range(k)))
    if math.isnan(kappa):
        assert summary.kappa is None
    else:
        assert summary.kappa == pytest.approx(kappa, abs=TOL)

    per_class = wml.class_measures(con, data, target="truth")
    p, r, f, support = skm.precision_recall_fscore_support(
        y, predicted, labels=range(k), zero_division=0
    )
    assert np.allclose(per_class.column("precision").to_numpy(), p, atol=TOL)
    assert np.allclose(per_class.column("recall").to_numpy(), r, atol=TOL)
    assert np.allclose(per_class.column("f_measure").to_numpy(), f, atol=TOL)
    assert per_class.column("support").to_pylist() == support.tolist()
    cm = skm.confusion_matrix(y, predicted, labels=range(k))
    tn = cm.sum() - cm.sum(axis=0) - cm.sum(axis=1) + np.diag(cm)
    fp = cm.sum(axis=0) - np.diag(cm)
    with np.errstate(invalid="ignore", divide="ignore"):
        specificity = np.where(tn + fp > 0, tn / np.maximum(tn + fp, 1), 0.0)
    assert np.allclose(per_class.column("specificity").to_numpy(), specificity, atol=TOL)
    assert np.allclose(
        per_class.column("fpr").to_numpy(), np.where(tn + fp > 0, 1 - specificity, 0.0), atol=TOL
    )
    averaged = {
        row["average"]: row for row in wml.averaged_measures(con, data, target="truth").to_pylist()
    }
    for average in ("macro", "weighted"):
        p, r, f, _ = skm.precision_recall_fscore_support(
            y, predicted, labels=range(k), average=average, zero_division=0
        )
        assert averaged[average]["precision"] == pytest.approx(p, abs=TOL)
        assert averaged[average]["recall"] == pytest.approx(r, abs=TOL)
        assert averaged[average]["f_measure"] == pytest.approx(f, abs=TOL)


# -- views, SQL text, determinism, errors -----------------------------------------------------
def test_measure_views_match_functions_and_transpile(con):
    rng = np.random.default_rng(3)
    p = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], size=200)
    y = (rng.random(200) < p).astype(int)
    con.register("arrow_scores", binary_table(y, p))
    con.execute("CREATE TABLE scores AS SELECT * FROM arrow_scores")
    options = {
        "expected_loss": {"loss": [[0, 1], [3, 0]]},
        "loss_decisions": {"loss": [[0, 1], [3, 0]]},
        "best_threshold": {"cost_ratio": 2.0},
    }
    for measure in metrics.MEASURES:
        view = f"v_{measure}"
        wml.create_measure_view(
            con,
            view,
            measure,
            "scores",
            target="y",
            probabilities=BINARY,
            **options.get(measure, {}),
        )
        assert con.sql(f"SELECT count(*) FROM {view}").fetchall()[0][0] >= 1
        for dialect in ("postgres", "spark"):
            sql = wml.measure_sql(
                con,
                measure,
                "scores",
                target="y",
                probabilities=BINARY,
                dialect=dialect,
                **options.get(measure, {}),
            )
            assert "LOG(" not in sql.upper().replace("CLIPPED_LOG", "")
    auc = con.sql("SELECT auc FROM v_roc_auc").fetchall()[0][0]
    assert auc == pytest.approx(skm.roc_auc_score(y, p), abs=TOL)
    lift = con.sql("SELECT lift FROM v_lift_table ORDER BY quantile").fetchall()
    assert [r[0] for r in lift] == pytest.approx(
        wml.lift_table(con, "scores", target="y", probabilities=BINARY).column("lift").to_pylist(),
        abs=TOL,
    )


def test_results_are_identical_across_runs(con):
    rng = np.random.default_rng(5)
    p = rng.random(5000)
    y = (rng.random(5000) < p).astype(int)
    data = binary_table(y, p)
    first = (
        wml.log_score(con, data, target="y", probabilities=BINARY),
        wml.lift_table(con, data, target="y", probabilities=BINARY),
    )
    second = (
        wml.log_score(con, data, target="y", probabilities=BINARY),
        wml.lift_table(con, data, target="y", probabilities=BINARY),
    )
    assert first[0] == second[0]
    assert first[1].equals(second[1])


def test_lift_ties_are_deterministic_and_pessimistic(con):
    data = binary_table([1, 0, 1, 0], [0.5, 0.5, 0.5, 0.5])
    rows = wml.lift_table(con, data, target="y", probabilities=BINARY, quantiles=[0.5]).to_pylist()
    assert rows[0]["positives"] == 0 and rows[1]["positives"] == 2


def test_default_columns_and_prediction_column(con):
    data = pa.table(
        {
            "truth": ["a", "b", "b"],
            "p_a": [0.9, 0.2, 0.6],
            "p_b": [0.1, 0.8, 0.4],
            "prediction": ["a", "b", "b"],
        }
    )
    assert wml.accuracy(con, data, target="truth").accuracy == pytest.approx(2 / 3, abs=TOL)
    assert wml.accuracy(
        con, data, target="truth", prediction="prediction"
    ).accuracy == pytest.approx(1.0, abs=TOL)
    assert wml.roc_auc(con, data, target="truth", positive="b").auc == pytest.approx(1.0, abs=TOL)


def test_errors(con):
    data = binary_table([0, 1], [0.2, 0.7])
    with pytest.raises(ColumnError):
        wml.roc_auc(con, data, target="missing", probabilities=BINARY)
    with pytest.raises(ColumnError):
        wml.roc_auc(con, data, target="y")  # no p_<label> columns
    with pytest.raises(ParameterError):
        wml.roc_auc(con, data, target="y", probabilities=BINARY, positive=7)
    with pytest.raises(ParameterError):
        wml.expected_loss(con, data, target="y", probabilities=BINARY, loss=[[0, 1]])
    with pytest.raises(ParameterError):
        wml.lift_table(con, data, target="y", probabilities=BINARY, quantiles=[0.5, 0.2])
    with pytest.raises(ParameterError):
        wml.create_measure_view(con, "v", "roc_auc", data, target="y", probabilities=BINARY)
    with pytest.raises(ParameterError):
        wml.measure_sql(con, "nope", data, target="y", probabilities=BINARY)
