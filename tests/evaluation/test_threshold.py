"""Choosing a decision threshold (evaluation/metrics/threshold.py): the cheapest point of the
ROC curve under a cost ratio, or the largest threshold reaching a recall, equal to a numpy
reference over scikit-learn's ROC points; the threshold then drives ``predict``. A view's
decision rule (threshold, positive class, loss matrix) is kept by class label: a new version
whose classes the rule does not name is refused before anything changes."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
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


# -- decision rules of views: stored by label, never by position -----------------------------
def _labelled(labels: tuple[str, ...], n: int, seed: int) -> pa.Table:
    """Rows whose colour leans to the label (every colour with every label at least once)."""
    rng = np.random.default_rng(seed)
    colours = ("red", "green", "blue")
    label = list(rng.choice(labels, n)) + [x for x in labels for _ in colours]
    colour = [colours[(labels.index(x) + int(rng.integers(0, 2))) % 3] for x in label[:n]]
    colour += [c for _ in labels for c in colours]
    return pa.table({"id": list(range(len(label))), "colour": colour, "label": label})


def _expected_loss_choice(proba: pa.Table, columns: dict, loss: dict) -> list[str]:
    """Minimum expected loss by label (numpy): loss[truth][predicted], ties to the first
    label in sorted order."""
    labels = sorted(columns)
    p = np.column_stack([proba[columns[c]].to_numpy() for c in labels])
    cost = np.array([[loss[t][q] for q in labels] for t in labels])
    return [labels[i] for i in np.argmin(p @ cost, axis=1)]


def _state(con) -> tuple:
    return (
        con.sql("SELECT * FROM wml.models").fetchall(),
        con.sql("SELECT * FROM v ORDER BY id").fetchall(),
    )


def test_an_update_adding_a_class_to_a_threshold_view_is_refused_before_anything_changes(con):
    con.execute("CREATE TABLE scored AS SELECT * FROM range(3) t(i), (SELECT 'red' AS colour "
                "UNION ALL SELECT 'green' UNION ALL SELECT 'blue') c")  # fmt: skip
    con.execute("CREATE TABLE s AS SELECT row_number() OVER () AS id, colour FROM scored")
    model = wml.NaiveBayes().fit(con, _labelled(("n", "y"), 60, 1), "label", keys=["id"], name="m")
    model.create_view(con, "v", "s", keys=["id"], threshold=0.3, positive="y")
    before = _state(con)
    with pytest.raises(wml.ViewRebuildError, match=r"view main\.v .*threshold=0\.3.*drop_view"):
        model.update(con, _labelled(("n", "y", "z"), 60, 2), batch_id="b1")
    assert _state(con) == before
    assert wml.load(con, "m").batches_ == []  # the batch id is not used up
    wml.drop_view(con, "v")
    model.update(con, _labelled(("n", "y", "z"), 60, 2), batch_id="b1")
    assert model.classes_ == ["n", "y", "z"]


def test_a_loss_view_keeps_its_costs_by_label_and_refuses_a_refit_without_a_class(con):
    con.execute("CREATE TABLE s AS SELECT * FROM (VALUES (1, 'red'), (2, 'green'), (3, 'blue'), "
                "(4, 'red'), (5, 'green'), (6, 'blue')) t(id, colour)")  # fmt: skip
    loss = {
        "a": {"a": 0, "b": 1, "c": 9},
        "b": {"a": 5, "b": 0, "c": 1},
        "c": {"a": 1, "b": 7, "c": 0},
    }
    matrix = [[loss[t][q] for q in "abc"] for t in "abc"]
    model = wml.NaiveBayes().fit(con, _labelled(("a", "b", "c"), 90, 1), "label", keys=["id"],
                                 name="m")  # fmt: skip
    model.create_view(con, "v", "s", keys=["id"], loss=matrix)
    # a re-fit with the same classes keeps the costs of each label
    model = wml.NaiveBayes(alpha=2.0).fit(con, _labelled(("a", "b", "c"), 90, 3), "label",
                                          keys=["id"], name="m")  # fmt: skip
    view = con.sql("SELECT * FROM v ORDER BY id").to_arrow_table()
    want = _expected_loss_choice(view, model.probability_columns(con), loss)
    assert view["prediction"].to_pylist() == want
    before = _state(con)
    with pytest.raises(wml.ViewRebuildError, match=r"view main\.v .*loss=.*gone \['c'\]"):
        wml.NaiveBayes().fit(con, _labelled(("a", "b"), 60, 2), "label", keys=["id"], name="m")
    assert _state(con) == before


@pytest.mark.parametrize(
    "stored, found",
    [
        ({"threshold": None, "positive": None, "loss": [[0, 1], [1, 0]], "labels": None}, "3x3"),
        ({"threshold": 0.3, "positive": "q", "loss": None, "labels": None}, "binary model"),
    ],
)
def test_a_rule_stored_by_position_that_no_longer_fits_is_a_typed_error(con, stored, found):
    """Views created before rules were stored by label keep their positional form; one that
    does not fit the model's classes is a ViewRebuildError naming the view (was a bare
    IndexError or ValueError)."""
    con.execute("CREATE TABLE s AS SELECT * FROM (VALUES (1, 'red'), (2, 'blue')) t(id, colour)")
    model = wml.NaiveBayes().fit(con, _labelled(("a", "b", "c"), 90, 1), "label", keys=["id"],
                                 name="m")  # fmt: skip
    model.create_view(con, "v", "s", keys=["id"])
    con.execute(
        "UPDATE wml.objects SET details = json_merge_patch(details, ?) WHERE role = "
        "'prediction_view'",
        [json.dumps({"options": {"decision": stored}})],  # a null removes "labels"
    )
    with pytest.raises(wml.ViewRebuildError, match=rf"view main\.v .*{found}"):
        wml.rebuild_views(con, "m")
    assert wml.rebuild_views(con, "m", on_broken="drop") == []


def test_a_rule_stored_by_position_reads_its_positions_as_the_models_classes(con):
    con.execute("CREATE TABLE s AS SELECT * FROM (VALUES (1, 'red'), (2, 'green'), (3, 'blue')) "
                "t(id, colour)")  # fmt: skip
    model = wml.NaiveBayes().fit(con, _labelled(("a", "b", "c"), 90, 1), "label", keys=["id"],
                                 name="m")  # fmt: skip
    matrix = [[0, 1, 9], [5, 0, 1], [1, 7, 0]]
    model.create_view(con, "v", "s", keys=["id"], loss=matrix)
    con.execute(
        "UPDATE wml.objects SET details = json_remove(details, '$.options.decision.labels') "
        "WHERE role = 'prediction_view'"
    )
    wml.rebuild_views(con, "m")
    got = con.sql("SELECT prediction FROM v ORDER BY id").fetchall()
    want = model.predict(con, "s", keys=["id"], loss=matrix)["prediction"].to_pylist()
    assert [r[0] for r in got] == want
