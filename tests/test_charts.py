"""Charts (warehouse_ml/charts.py, evaluation/report.py): what each chart draws equals the rows
of the SQL measure it shows; curves of many points are thinned in SQL to points of the curve;
the reliability bins equal scikit-learn's; model pictures and cards; a clear error without
matplotlib."""

from __future__ import annotations

import sys

import matplotlib
import numpy as np
import pyarrow as pa
import pytest
from conftest import load_text_csv
from sklearn.calibration import calibration_curve

import warehouse_ml as wml
from warehouse_ml import charts

matplotlib.use("Agg")


@pytest.fixture
def vote(con, datasets):
    load_text_csv(con, "d", datasets / "vote.csv")
    con.execute("CREATE TABLE src AS SELECT row_number() OVER () - 1 AS id, * FROM d")
    return wml.cross_validate(con, "src", "Class", wml.NaiveBayes(), key="id")


def _line(ax, index):
    line = ax.lines[index]
    return list(map(float, line.get_xdata())), list(map(float, line.get_ydata()))


def test_thinned_curves_are_points_of_the_full_curve(con):
    rng = np.random.default_rng(3)
    n = 60_000
    truth = rng.integers(0, 2, n)
    score = np.clip(truth * 0.3 + rng.random(n) * 0.7, 0, 1)
    con.register("p", pa.table({"y": truth.astype(str), "p_0": 1 - score, "p_1": score}))
    for measure, x in ((wml.roc_curve, "fpr"), (wml.precision_recall_curve, "recall")):
        full = measure(con, "p", target="y", positive="1").to_pylist()
        thin = measure(con, "p", target="y", positive="1", max_points=100).to_pylist()
        assert len(full) > 50_000 and 100 <= len(thin) <= 102
        assert thin[0] == full[0] and thin[-1] == full[-1]
        by_point = {r["point"]: r for r in full}
        assert all(by_point[r["point"]] == r for r in thin)
        assert [r[x] for r in thin] == sorted(r[x] for r in thin)
    with pytest.raises(wml.ParameterError, match="max_points"):
        wml.roc_curve(con, "p", target="y", max_points=1)


def test_calibration_bins_equal_scikit_learn(con, vote):
    truth = np.array([c == "republican" for c in vote.to_arrow().column("Class").to_pylist()])
    p = vote.to_arrow().column("p_republican").to_numpy()
    for bins in (5, 10, 13):
        table = vote.calibration("republican", bins=bins)
        observed, predicted = calibration_curve(truth, p, n_bins=bins)
        np.testing.assert_allclose(table.column("observed").to_numpy(), observed, atol=1e-12)
        np.testing.assert_allclose(table.column("mean_predicted").to_numpy(), predicted, atol=1e-12)
        assert sum(table.column("n").to_pylist()) == len(p)
    with pytest.raises(wml.ParameterError, match="bins"):
        vote.calibration("republican", bins=0)


def test_each_chart_draws_the_sql_rows(vote):
    roc = vote.roc_curve("republican", max_points=500)
    x, y = _line(vote.plot_roc(), 1)  # line 0: the chance diagonal
    assert (x, y) == (roc.column("fpr").to_pylist(), roc.column("tpr").to_pylist())
    pr = vote.precision_recall_curve("republican", max_points=500)
    ax = vote.plot_precision_recall()
    assert _line(ax, 0) == (pr.column("recall").to_pylist(), pr.column("precision").to_pylist())
    ap = vote.average_precision("republican")
    assert _line(ax, 1)[1] == list(ap.interpolated_precision)
    lift = vote.lift_table("republican")
    ax = vote.plot_lift()
    assert [b.get_height() for b in ax.patches] == lift.column("lift").to_pylist()
    calibration = vote.calibration("republican")
    x, y = _line(vote.plot_calibration(), 1)
    assert x == calibration.column("mean_predicted").to_pylist()
    assert y == calibration.column("observed").to_pylist()
    cells = {
        (r["true_index"], r["predicted_index"]): r["n"] for r in vote.confusion_matrix().to_pylist()
    }
    image = vote.plot_confusion_matrix().images[0].get_array()
    assert {(i, j): int(image[i, j]) for i in range(2) for j in range(2)} == cells
    html = vote._repr_html_()
    assert "<svg" in html and f"{vote.accuracy().accuracy:.4f}" in html


def test_multiclass_roc_draws_every_class_against_the_rest(con, datasets):
    load_text_csv(con, "d", datasets / "car.csv")
    ev = wml.cross_validate(con, "d", "class", wml.NaiveBayes())
    ax = ev.plot_roc()
    assert len(ax.lines) == 1 + 4
    for i, label in enumerate(ev.classes):
        roc = ev.roc_curve(label, max_points=500)
        assert _line(ax, i + 1)[0] == roc.column("fpr").to_pylist()


def test_models_draw_their_tree_ranking_and_card(con, datasets):
    load_text_csv(con, "d", datasets / "car.csv")
    tan = wml.TAN().fit(con, "d", "class", name="t")
    texts = {t.get_text() for t in tan.plot_tree().texts}
    assert {"class", *tan.feature_names_in_} <= texts
    ranking = tan.attribute_ranking(con)
    bars = tan.plot_attribute_ranking(con).patches
    assert [b.get_width() for b in bars][::-1] == ranking.column("mi").to_pylist()
    assert "<svg" in tan._repr_html_() and "d, 1728 rows" in tan._repr_html_()
    nb = wml.NaiveBayes().fit(con, "d", "class", name="n")
    card = nb._repr_html_()
    assert card.count("<svg") == 1 and "naive_bayes" in card and "70.0%" in card  # unacc
    assert tan._repr_html_().count("<svg") == 2  # its classes and its tree
    assert "unfitted" in wml.NaiveBayes()._repr_html_()
    tree = wml.chow_liu_tree(con, "d")
    texts = {t.get_text() for t in tree.plot().texts}
    assert set(tree.attributes) <= texts


def test_without_matplotlib_the_error_names_the_extra(vote, con, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setattr(charts, "available", lambda: False)
    with pytest.raises(wml.ParameterError, match=r"warehouse-ml\[report\]"):
        vote.report("never.html")
    with pytest.raises(wml.ParameterError, match=r"warehouse-ml\[report\]"):
        vote.plot_roc()
    card = vote._repr_html_()  # a notebook still shows the figures
    assert "<svg" not in card and f"{vote.accuracy().accuracy:.4f}" in card
    tan = wml.TAN().fit(con, "src", "Class", keys=["id"], name="t")
    assert "<svg" not in tan._repr_html_() and "tan" in tan._repr_html_()


def test_each_folds_roc_curve_is_drawn_faintly(vote):
    from sklearn.metrics import roc_curve

    table = vote.to_arrow()
    ax = vote.plot_roc(folds=True)
    assert len(ax.lines) == vote.folds + 2  # each fold's, the diagonal, the pooled curve
    for fold in range(vote.folds):
        rows = [r for r in table.to_pylist() if r["fold"] == fold]
        truth = [r["Class"] == "republican" for r in rows]
        fpr, tpr, _ = roc_curve(truth, [r["p_republican"] for r in rows], drop_intermediate=False)
        x, y = _line(ax, fold)
        np.testing.assert_allclose(x, fpr, atol=1e-12)
        np.testing.assert_allclose(y, tpr, atol=1e-12)
        assert ax.lines[fold].get_alpha() < 0.5
    with pytest.raises(wml.ParameterError, match="fold must be within"):
        vote.fold_measure("roc_curve", vote.folds)
