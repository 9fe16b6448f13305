"""Charts (warehouse_ml/charts.py, evaluation/report.py): what each chart draws equals the rows
of the SQL measure it shows; curves of many points are thinned in SQL to points of the curve;
the reliability bins equal scikit-learn's; model pictures and cards; a clear error without
matplotlib."""

from __future__ import annotations

import sys

import matplotlib
import matplotlib.colors
import matplotlib.figure
import numpy as np
import pyarrow as pa
import pytest
from conftest import load_text_csv
from kinds_under_test import KIND_CLASSES
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


@pytest.mark.parametrize("kind", KIND_CLASSES, ids=lambda k: k.kind)
def test_every_kind_plots_its_attribute_ranking_or_refuses_it_typed(con, kind):
    """Bars of the column that ranks the kind's attributes (MI with the class; a decision
    tree's total weighted gain), labelled with it; a kind without a ranking is a
    NotSupportedError, never a raw KeyError."""
    data = wml.synthetic.tan_data(300, 3, n_classes=2, strings=True, seed=4)
    model = kind().fit(con, data, "class", name="ranked")
    try:
        ranking = model.attribute_ranking(con)
    except wml.NotSupportedError:
        with pytest.raises(wml.NotSupportedError, match=model.kind):
            model.plot_attribute_ranking(con)
        return
    measure, label = model.RANKING_MEASURE
    ax = model.plot_attribute_ranking(con)
    assert [b.get_width() for b in ax.patches][::-1] == ranking.column(measure).to_pylist()
    assert ax.get_xlabel() == label
    shown = [t.get_text() for t in ax.get_yticklabels()][::-1]
    assert shown == ranking.column("attribute").to_pylist()


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


TEX_LABELS = ["$\\alpha$ and $x$", "$\\frac$ b"]
"""Class labels and column names that mathtext would typeset (or fail to parse)."""


def _rendered(draw, size=(5.0, 4.0)):
    """The figure of ``draw(ax=...)`` as a report lays it out (charts.drawn), drawn on Agg, and
    its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    figure = charts.drawn(lambda ax: draw(ax=ax), size)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return figure, canvas.get_renderer()


def _texts(ax):
    from matplotlib.text import Text

    return [t for t in ax.findobj(Text) if t.get_text()]


def test_chart_texts_are_drawn_literally_never_as_tex(con):
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 2, 400)
    columns = {
        name: [f"{name}{(t + rng.integers(0, 2)) % 2}" for t in truth] for name in TEX_LABELS
    }
    con.register("tex", pa.table({**columns, "$y$": [TEX_LABELS[t] for t in truth]}))
    ev = wml.cross_validate(con, "tex", "$y$", wml.TAN(), folds=3)
    model = wml.TAN().fit(con, "tex", "$y$", name="tex")
    drawings = [
        ev.plot_roc, ev.plot_precision_recall, ev.plot_lift, ev.plot_calibration,
        ev.plot_confusion_matrix, model.plot_tree,
        lambda ax: model.plot_attribute_ranking(con, ax=ax),
        lambda ax: charts.class_rows(ax, TEX_LABELS, [3, 4]),
    ]  # fmt: skip
    for draw in drawings:
        figure, _ = _rendered(draw)  # mathtext would raise on "$\frac$"
        texts = [t for ax in figure.axes for t in _texts(ax)]
        assert texts and not any(t.get_parse_math() or t.get_usetex() for t in texts)
        drawn = " ".join(t.get_text() for t in texts)
        assert any(label in drawn for label in [*TEX_LABELS, "$y$"]), drawn
    assert charts.svg(model.plot_tree).count("$\\frac$ b") >= 1  # the SVG's text comments


def _contrast(a, b):
    """WCAG 2's contrast ratio of two sRGB colours (the test's own formula)."""

    def luminance(rgb):
        c = np.array(rgb[:3], dtype=float)
        c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
        return float(c @ [0.2126, 0.7152, 0.0722])

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_confusion_counts_contrast_with_their_cells():
    counts = [[100, 51, 60], [70, 30, 5], [0, 45, 90]]  # cells just above half the largest too
    cells = pa.table(
        {
            "true_index": [i for i in range(3) for _ in range(3)],
            "predicted_index": [j for _ in range(3) for j in range(3)],
            "n": [n for row in counts for n in row],
        }
    )
    ax = charts.confusion(matplotlib.figure.Figure().add_subplot(), cells, ["a", "b", "c"])
    image = ax.images[0]
    texts = [t for t in ax.texts if t.get_text().isdigit()]
    assert len(texts) == 9
    shades = set()
    for text in texts:
        x, y = text.get_position()
        assert int(text.get_text()) == counts[int(y)][int(x)]
        cell = image.to_rgba(counts[int(y)][int(x)])
        assert _contrast(matplotlib.colors.to_rgba(text.get_color()), cell) >= 4.5, text
        shades.add(text.get_color())
    assert shades == {"black", "white"}


def test_calibration_counts_stay_inside_the_axes(vote):
    figure, renderer = _rendered(vote.plot_calibration)
    ax = figure.axes[0]
    inside = ax.get_window_extent(renderer)
    labels = [t for t in ax.texts if t.get_text().isdigit()]
    assert len(labels) == vote.calibration("republican").num_rows
    for label in labels:
        box = label.get_window_extent(renderer)
        assert inside.x0 < box.x0 and box.x1 < inside.x1, label.get_text()
        assert inside.y0 < box.y0 and box.y1 < inside.y1, label.get_text()


def test_roc_legend_lies_outside_the_curves_and_inside_the_figure(con, datasets):
    from warehouse_ml.evaluation.selection import Candidate

    load_text_csv(con, "d", datasets / "vote.csv")
    candidates = [wml.NaiveBayes(), wml.TAN(), Candidate(wml.NaiveBayes(), features="top:4")]
    selection = wml.select_model(con, "d", "Class", candidates, folds=3, name="best")
    figure, renderer = _rendered(selection.plot_roc, (7.0, 5.5))
    ax = figure.axes[0]
    legend = ax.get_legend().get_window_extent(renderer)
    assert not legend.overlaps(ax.get_window_extent(renderer))
    page = figure.bbox
    assert page.x0 <= legend.x0 and legend.x1 <= page.x1 and page.y0 <= legend.y0


def test_tree_labels_are_readable_and_arrowheads_outside_the_boxes(con, datasets):
    load_text_csv(con, "d", datasets / "vote.csv")
    tan = wml.TAN().fit(con, "d", "Class", name="t")
    figure, renderer = _rendered(tan.plot_tree)
    ax = figure.axes[0]
    nodes = [t for t in ax.texts if t.get_text() in {"Class", *tan.feature_names_in_}]
    assert len(nodes) == len(tan.feature_names_in_) + 1
    assert all(t.get_fontsize() >= 10 for t in nodes)  # points: 13 px at 96 dpi
    assert all(t.get_fontsize() >= 9 for t in ax.texts if t.get_text())  # the weights
    boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in nodes]
    for i, a in enumerate(boxes):
        assert not any(a.overlaps(b) for b in boxes[i + 1 :])
    arrows = [t.arrow_patch for t in ax.texts if getattr(t, "arrow_patch", None) is not None]
    assert len(arrows) == len(tan.feature_names_in_)  # the class's arrow to the root, the edges
    for arrow in arrows:
        path = arrow.get_path().transformed(arrow.get_transform())
        points = [v for v, code in zip(path.vertices, path.codes, strict=True) if code != 79]
        assert not any(b.contains(*v) for v in points for b in boxes), points  # all shown
        gaps = [np.hypot(max(b.x0 - x, 0, x - b.x1), max(b.y0 - y, 0, y - b.y1))
                for x, y in points for b in boxes]  # fmt: skip
        assert min(gaps) < 8, points  # the head's tip ends at the child's box, outside it


def test_calibration_counts_of_a_well_calibrated_model_do_not_overlap():
    """Bins on the diagonal (a well-calibrated model, as the README's chart): every count's
    label clear of every other and of the axes."""
    centres = [0.05 + 0.1 * i for i in range(10)]
    bins = pa.table(
        {"mean_predicted": centres, "observed": centres, "n": [1000 + 37 * i for i in range(10)]}
    )
    figure, renderer = _rendered(lambda ax: charts.calibration(ax, bins, "yes"))
    ax = figure.axes[0]
    inside = ax.get_window_extent(renderer)
    boxes = [t.get_window_extent(renderer) for t in ax.texts if t.get_text().isdigit()]
    assert len(boxes) == 10
    for i, box in enumerate(boxes):
        assert inside.x0 < box.x0 and box.x1 < inside.x1 and inside.y0 < box.y0 < box.y1
        assert box.y1 < inside.y1 and not any(box.overlaps(b) for b in boxes[i + 1 :]), i


LONG_NAMES = [
    "<img src=x onerror=\"document.title='pwned'\"> north",
    "<img src=x onerror=\"document.title='pwned'\"> south",
    "short",
]
"""Class labels and attribute names too long to draw whole; the first two share a prefix."""
NAMES_DRAWN = {
    "xticks": lambda ax: [t.get_text() for t in ax.get_xticklabels()],
    "yticks": lambda ax: [t.get_text() for t in ax.get_yticklabels()],
    "xlabel": lambda ax: [ax.get_xlabel()],
    "legend": lambda ax: [t.get_text() for t in ax.get_legend().get_texts()],
}
"""Where a chart draws names: its texts there."""


def test_long_names_are_drawn_shortened_around_an_ellipsis_and_every_chart_fits(recwarn):
    """A name longer than charts.NAME_CHARS is drawn as its start and its end around an
    ellipsis (two names that share a prefix stay apart): each chart that draws names lays
    out inside its figure at the size a report or card gives it, with no "Tight layout not
    applied" warning."""
    for name in LONG_NAMES[:2]:
        short = charts.short_name(name)
        assert len(short) == charts.NAME_CHARS and short.count("\u2026") == 1
        head, tail = short.split("\u2026")
        assert name.startswith(head) and name.endswith(tail) and len(tail) >= 10
    assert charts.short_name("short") == "short"
    cells = pa.table({"true_index": [0, 1, 2], "predicted_index": [0, 1, 2], "n": [3, 4, 5]})
    ranked = pa.table({"attribute": LONG_NAMES, "mi": [0.3, 0.2, 0.1]})
    bins = pa.table({"mean_predicted": [0.2, 0.8], "observed": [0.3, 0.7], "n": [5, 5]})
    gains = pa.table({"fraction": [0.5, 1.0], "lift": [1.2, 0.8], "gain": [0.6, 1.0]})
    curve = pa.table({"recall": [0.0, 1.0], "precision": [1.0, 0.5]})
    drawings = [  # (draw, figure size as report.py and models/base.py give it, names drawn)
        (lambda ax: charts.confusion(ax, cells, LONG_NAMES), (5.0, 4.0), "xticks"),
        (lambda ax: charts.class_rows(ax, LONG_NAMES, [5, 3, 2]), (4.0, 2.1), "yticks"),
        (lambda ax: charts.ranking(ax, ranked), (6.0, 2.55), "yticks"),
        (lambda ax: charts.lift(ax, gains, LONG_NAMES[0]), (5.0, 4.0), "xlabel"),
        (lambda ax: charts.calibration(ax, bins, LONG_NAMES[0]), (5.0, 4.0), "xlabel"),
        (lambda ax: charts.precision_recall(ax, curve, LONG_NAMES[0], 0.5, [0.5], [0.8]),
         (5.0, 4.0), "legend"),
    ]  # fmt: skip
    for draw, size, where in drawings:
        figure, renderer = _rendered(draw, size)
        shown = NAMES_DRAWN[where](figure.axes[0])
        text = " ".join(shown)
        assert charts.short_name(LONG_NAMES[0]) in text and LONG_NAMES[0] not in text, text
        if where.endswith("ticks"):
            assert sorted(shown) == sorted(charts.short_name(n) for n in LONG_NAMES)
        box = figure.get_tightbbox(renderer)  # inches
        assert box.x0 >= 0 and box.x1 <= size[0] and box.y0 >= 0 and box.y1 <= size[1], where
    assert [str(w.message) for w in recwarn if "layout" in str(w.message)] == []


def test_a_leave_one_out_roc_draws_the_pooled_curve_alone(con, monkeypatch):
    """A leave-one-out's folds are single rows (no curve each, one query each): past
    plots.FOLD_CURVES folds, ``folds=True`` draws no fold's curve and measures none."""
    from warehouse_ml.evaluation import plots

    data = wml.synthetic.tan_data(60, 3, n_classes=2, strings=True, seed=3)
    ev = wml.cross_validate_leave_one_out(con, data, "class", wml.NaiveBayes())
    assert ev.folds == 60 > plots.FOLD_CURVES
    monkeypatch.setattr(type(ev), "fold_measure", lambda *a, **k: pytest.fail("a fold measured"))
    ax = ev.plot_roc(folds=True)
    assert len(ax.lines) == 2  # the diagonal and the pooled curve
    pooled = ev.roc_curve(ev.classes[1], max_points=plots.CURVE_POINTS)
    assert _line(ax, 1)[0] == pooled.column("fpr").to_pylist()
