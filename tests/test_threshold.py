"""Choosing a decision threshold (evaluation/metrics/threshold.py): the cheapest point of the
ROC curve under a cost ratio, or the largest threshold reaching a recall, equal to a numpy
reference over scikit-learn's ROC points; the threshold then drives ``predict``."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import load_text_csv
from sklearn.metrics import roc_curve

import warehouse_ml as wml


@pytest.fixture
def held_out(con, datasets):
    load_text_csv(con, "d", datasets / "vote.csv")
    con.execute("CREATE TABLE src AS SELECT row_number() OVER () - 1 AS id, * FROM d")
    con.execute("CREATE TABLE train AS SELECT * FROM src WHERE id % 3 <> 0")
    con.execute("CREATE TABLE test AS SELECT * FROM src WHERE id % 3 = 0")
    model = wml.NaiveBayes().fit(con, "train", "Class", keys=["id"], name="m")
    return model, wml.evaluate(con, model, "test", keys=["id"])


def _reference(ev):
    rows = ev.to_arrow()
    truth = np.array([c == "republican" for c in rows.column("Class").to_pylist()])
    fpr, tpr, thresholds = roc_curve(
        truth, rows.column("p_republican").to_numpy(), drop_intermediate=False
    )
    positives, negatives = truth.sum(), (~truth).sum()
    return thresholds[1:], (tpr * positives)[1:], (fpr * negatives)[1:], tpr[1:], positives


@pytest.mark.parametrize("cost_ratio", [0.2, 1.0, 5.0, 40.0])
def test_the_cheapest_threshold_under_a_cost_ratio(held_out, cost_ratio):
    _, ev = held_out
    thresholds, tp, fp, _, positives = _reference(ev)
    cost = fp + cost_ratio * (positives - tp)
    best = int(np.argmin(cost))  # the first of equal costs: the larger threshold
    got = ev.best_threshold("republican", cost_ratio=cost_ratio)
    assert got.threshold == pytest.approx(thresholds[best], abs=1e-12)
    assert (got.tp, got.fp) == (round(tp[best]), round(fp[best]))
    assert got.objective == pytest.approx(cost[best], abs=1e-9)


@pytest.mark.parametrize("recall", [0.5, 0.9, 0.99, 1.0])
def test_the_largest_threshold_reaching_a_recall(held_out, recall):
    _, ev = held_out
    thresholds, _, _, tpr, _ = _reference(ev)
    best = int(np.argmax(tpr >= recall - 1e-15))
    got = ev.best_threshold("republican", target_recall=recall)
    assert got.threshold == pytest.approx(thresholds[best], abs=1e-12)
    assert got.tpr >= recall and got.positive == "republican"


def test_the_threshold_drives_predict(con, held_out):
    model, ev = held_out
    chosen = ev.best_threshold("republican", cost_ratio=5.0)
    predicted = model.predict(
        con, "test", keys=["id"], threshold=chosen.threshold, positive="republican"
    ).to_pylist()
    truth = dict(con.execute('SELECT id, "Class" FROM test').fetchall())
    hits = [r for r in predicted if r["prediction"] == "republican"]
    assert sum(truth[r["id"]] == "republican" for r in hits) == chosen.tp
    assert sum(truth[r["id"]] != "republican" for r in hits) == chosen.fp


def test_bad_choices_are_refused(held_out):
    _, ev = held_out
    for options in ({}, {"cost_ratio": 1.0, "target_recall": 0.5}):
        with pytest.raises(wml.ParameterError, match="exactly one"):
            ev.best_threshold("republican", **options)
    with pytest.raises(wml.ParameterError, match="cost_ratio"):
        ev.best_threshold("republican", cost_ratio=0)
    with pytest.raises(wml.ParameterError, match="target_recall"):
        ev.best_threshold("republican", target_recall=1.5)
