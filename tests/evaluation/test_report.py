"""The one-file HTML report (evaluation/report.py) as a person sees it: rendered by headless
Chromium (Debian's ``chromium``, installed by .ci/run) with the network off, its console free
of errors, every chart decoded to a non-zero size and not blank in a screenshot; and the
numbers it prints are the API's."""

from __future__ import annotations

import collections
import dataclasses
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import matplotlib.image
import numpy as np
import pyarrow as pa
import pytest
from conftest import load_text_csv
from kinds_under_test import KIND_CLASSES

import warehouse_ml as wml
from warehouse_ml.evaluation.selection import Candidate
from warehouse_ml.models.inspection import sections

PROBE = """<script>
window.wmlErrors = [];
window.addEventListener("error", (e) => {
  window.wmlErrors.push(String(e.message || (e.target && (e.target.src || e.target.href)) || e));
}, true);
const wmlConsoleError = console.error;
console.error = (...args) => { window.wmlErrors.push(args.join(" ")); wmlConsoleError(...args); };
window.addEventListener("load", () => {
  const found = [];
  document.querySelectorAll("figure").forEach((figure) => {
    const svg = figure.querySelector("svg");
    const box = (svg || figure).getBoundingClientRect();
    found.push({ caption: figure.querySelector("figcaption").textContent, svg: !!svg,
      x: box.x + window.scrollX, y: box.y + window.scrollY, w: box.width, h: box.height,
      units: svg ? svg.viewBox.baseVal.width : 0, room: figure.getBoundingClientRect().width });
  });
  const out = document.createElement("pre");
  out.id = "wml-probe";
  out.style.display = "none";
  const tags = new Set([...document.body.querySelectorAll("*")]
    .filter((e) => !e.parentElement.closest("svg")).map((e) => e.tagName.toLowerCase()));
  out.textContent = JSON.stringify({ errors: window.wmlErrors, figures: found,
    height: document.documentElement.scrollHeight, title: document.title,
    tags: [...tags].sort(), text: document.body.innerText });
  document.body.appendChild(out);
});
</script>"""
OFFLINE = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--force-device-scale-factor=1",
    "--proxy-server=http://127.0.0.1:9",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--virtual-time-budget=5000",
]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip(
            "headless Chromium not installed (Debian package chromium; .ci/run installs it)"
        )
    return found


def browse(tmp_path: Path, *options: str) -> str:
    """Chromium's standard output for ``options``, offline, with a profile of its own."""
    profile = f"--user-data-dir={tmp_path / 'chromium-profile'}"
    return subprocess.run(
        [chromium(), *OFFLINE, profile, *options], capture_output=True, text=True, timeout=120
    ).stdout


WIDTH = 1200
"""The width of the window a report is rendered in (px)."""


def rendered(page: Path, tmp_path: Path) -> tuple[dict, object]:
    """What Chromium measured of ``page`` in a window :data:`WIDTH` px wide (console errors,
    each figure's box and its SVG's width in its own units, the room its figure gives it, the
    page height, the title, the elements of the body and its text, after every script ran)
    and a screenshot of the whole page as an RGBA array."""
    probed = tmp_path / "probed.html"
    probed.write_text(page.read_text().replace("</head>", PROBE + "</head>", 1))
    url = probed.as_uri()
    dom = browse(tmp_path, f"--window-size={WIDTH},2000", "--dump-dom", url)
    probe = re.search(r'<pre id="wml-probe"[^>]*>(.*?)</pre>', dom, re.S).group(1)
    found = json.loads(html.unescape(probe))
    shot = tmp_path / "shot.png"
    browse(tmp_path, f"--window-size={WIDTH},{found['height'] + 40}", f"--screenshot={shot}", url)
    return found, matplotlib.image.imread(shot)


def shows_every_chart(page: Path, tmp_path: Path, captions: list[str]) -> dict:
    """``page`` opened offline in Chromium: no external reference, no console or resource
    error, the figures captioned ``captions`` in order, each an SVG of non-zero size whose
    region of the screenshot is not blank. Returns what Chromium measured (:func:`rendered`)."""
    text = page.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//|@import|url\(\s*["']?http""", text)
    found, image = rendered(page, tmp_path)
    assert found["errors"] == []
    assert [f["caption"] for f in found["figures"]] == captions
    for figure in found["figures"]:
        assert figure["svg"] and figure["w"] > 100 and figure["h"] > 100, figure
        x, y, w, h = (int(figure[k]) for k in ("x", "y", "w", "h"))
        region = image[y : y + h, x : x + w, :3]
        assert region.shape[0] > 100 and region.shape[1] > 100, figure
        assert region.std() > 0.05 and (region < 0.5).mean() > 0.005, figure["caption"]
    return found


CHARTS = ["confusion matrix", "ROC", "precision-recall", "lift and gains", "calibration"]


@pytest.mark.slow
def test_the_report_of_a_real_data_set_renders_offline_with_every_chart(con, datasets, tmp_path):
    load_text_csv(con, "d", datasets / "vote.csv")
    ev = wml.cross_validate(con, "d", "Class", wml.TAN())
    model = wml.TAN().fit(con, "d", "Class", name="vote_tan")
    page = ev.report(tmp_path / "report.html", model=model)
    shows_every_chart(page, tmp_path, [*CHARTS, "attribute ranking", "tree"])


def test_the_report_of_generated_data_renders_offline_with_every_chart(con, tmp_path):
    """The same without the shared data sets: the demo's generator, Naive Bayes (no tree)."""
    data = wml.synthetic.tan_data(3000, 6, n_classes=2, strings=True, seed=5)
    con.register("generated", data)
    ev = wml.cross_validate(con, "generated", "class", wml.NaiveBayes(), folds=5)
    model = wml.NaiveBayes().fit(con, "generated", "class", name="generated_nb")
    page = ev.report(tmp_path / "report.html", model=model, loss=[[0, 1], [4, 0]])
    shows_every_chart(page, tmp_path, [*CHARTS, "attribute ranking"])


def figure_svgs(text: str) -> dict[str, str]:
    """Each figure's SVG markup in a report, by caption."""
    found = re.findall(r"<figure[^>]*>(<svg.*?</svg>)\s*<figcaption>(.*?)</figcaption>", text, re.S)
    return {html.unescape(caption): svg for svg, caption in found}


def font_points(svg: str) -> list[float]:
    """The point size of every text a matplotlib SVG draws: each text is glyph paths under a
    ``scale(s -s)`` of s = points / 100."""
    return [100 * float(s) for s in re.findall(r"scale\(([0-9.]+) -\1\)", svg)]


def drawn_texts(svg: str) -> list[str]:
    """The texts a matplotlib SVG draws (it writes each in a comment before its glyphs)."""
    return [html.unescape(t) for t in re.findall(r"<!-- (.*?) -->", svg)]


def a_readable_tree_that_fits(page: Path, found: dict) -> str:
    """The report's tree figure, checked as Chromium showed it (``found``: :func:`rendered`):
    inside the page without scrolling, every text at least 10 px; returns its SVG."""
    (box,) = [f for f in found["figures"] if f["caption"] == "tree"]
    assert box["x"] >= 0 and box["x"] + box["w"] <= WIDTH, box
    assert box["w"] <= box["room"] + 0.5, box  # the figure holds it: nothing to scroll
    svg = figure_svgs(page.read_text())["tree"]
    pixels = box["w"] / box["units"]  # CSS px per SVG unit (a point, as matplotlib writes)
    sizes = font_points(svg)
    assert sizes and min(sizes) * pixels >= 10, (min(sizes), pixels)
    return svg


def wide_tree_rows(n: int = 2000, seed: int = 1) -> pa.Table:
    """A class of a number, a 40-valued category and a shape: the category's multiway split
    is far too wide to draw whole."""
    rng = np.random.default_rng(seed)
    city = rng.integers(0, 40, n)
    x = rng.normal(size=n)
    shape = rng.choice(["round", "square", "triangle", "star", "hex"], n)
    y = (city % 3 == 0) ^ (x > 0.3) ^ (shape == "star")
    y = np.where(rng.random(n) < 0.05, ~y, y)
    return pa.table({"city": [f"city_{c:02d}" for c in city], "x": x, "shape": shape,
                     "y": np.where(y, "yes", "no")})  # fmt: skip


def test_a_trees_report_draws_its_top_levels_in_the_page_and_its_rules_in_full(con, tmp_path):
    """A tree of hundreds of leaves: its first three levels drawn inside the page in text of
    10 px or more, a level's lightest branches folded into one box; the whole tree as its
    rules, folded in the page."""
    con.register("rows", wide_tree_rows())
    model = wml.DecisionTree(pruning="none").fit(con, "rows", "y", name="wide")
    assert model.record.state.learned.leaves > 100
    ev = wml.evaluate(con, model, "rows")
    page = ev.report(tmp_path / "report.html", model=model)
    found = shows_every_chart(page, tmp_path, [*CHARTS, "tree", "attribute ranking"])
    svg = a_readable_tree_that_fits(page, found)
    texts = drawn_texts(svg)
    root = model.record.state.learned.root
    assert f"{root.split.attribute}?" in texts
    assert any(t.endswith(" more") and t.startswith("+") for t in texts)  # the folded box
    assert sum(t.startswith("n = ") or t.startswith("(n = ") for t in texts) < 40
    rules = html.escape(model.tree_text())
    assert f"<pre>{rules}</pre>" in page.read_text()


@pytest.mark.slow
def test_adults_tree_report_shows_the_root_and_two_levels_readable(con, datasets, tmp_path):
    """UCI adult's default tree (646 leaves): its report used to draw an SVG 124,000 pt wide
    in a scroll box (three nodes in sight, not the root) in 13-103 s."""
    numbers = ("age", "fnlwgt", "education-num", "capital-gain", "capital-loss",
               "hours-per-week")  # fmt: skip
    load_text_csv(con, "adult", datasets / "adult.csv", numbers)
    # the integer columns of more than 32 values, numeric as they would be by default, declared
    # so (education-num, 16 values, stays categorical)
    many_valued = [n for n in numbers if n != "education-num"]
    model = wml.DecisionTree().fit(con, "adult", "class", numeric=many_valued, name="adult_tree")
    ev = wml.evaluate(con, model, "adult")
    page = ev.report(tmp_path / "report.html", model=model)
    svg = a_readable_tree_that_fits(page, rendered(page, tmp_path)[0])
    texts = drawn_texts(svg)
    root = model.record.state.learned.root
    assert root.split is not None and f"{root.split.attribute}?" in texts
    for child in root.children:  # both levels below the root, every branch drawn
        if child.split is not None:
            assert f"{child.split.attribute}?" in texts
            drawn = re.sub(r"\s", "", "".join(texts))  # a test's lines as one
            tests = [child.split.test(b, 6) for b in range(len(child.children))]
            assert all(re.sub(r"\s", "", t) in drawn for t in tests), tests


@pytest.mark.slow
def test_the_reports_numbers_are_the_apis(con, datasets, tmp_path):
    load_text_csv(con, "d", datasets / "car.csv")
    ev = wml.cross_validate(con, "d", "class", wml.NaiveBayes())
    model = wml.NaiveBayes().fit(con, "d", "class", name="car_nb")
    loss = [[0.0 if i == j else 1.0 + i for j in range(4)] for i in range(4)]
    page = ev.report(tmp_path / "r.html", model=model, positive="acc", loss=loss)
    text = page.read_text()
    # a fresh object over the same table: every number computed again, on its own (``ev``
    # stays referenced: a temporary evaluation's tables go when its object is collected)
    fresh = dataclasses.replace(ev)
    accuracy = fresh.accuracy()
    expected = [
        f"{accuracy.accuracy:.4f} [{accuracy.accuracy_low:.4f}, {accuracy.accuracy_high:.4f}]",
        f"{accuracy.kappa:.4f}",
        f"{fresh.auc('acc').auc:.4f}",
        f"{fresh.log_score().mean:.4f}",
        f"{fresh.brier_score().mean:.4f}",  # four classes: over every class
    ]
    for figure in expected:
        assert figure in text
    for row in fresh.class_measures().to_pylist():
        assert f'<td>{row["class_label"]}</td><td class="n">{row["support"]}</td>' in text
        assert f'<td class="n">{row["f_measure"]:.4f}</td>' in text
    summary = fresh.expected_loss(loss)
    expected += [
        f"{summary.prediction_loss:.4f}",
        f"{summary.decision_loss:.4f}",
        f"{summary.expected_loss:.4f}",
    ]
    for figure in expected:
        assert figure in text
    assert "SQL of accuracy" in text and "SQL of expected_loss" in text and "SELECT" in text
    for row in model.attribute_ranking(con).to_pylist():
        assert f"<td>{row['attribute']}</td><td>string</td><td>{row['treatment']}</td>" in text
        assert f'<td class="n">{row["mi"]:.4f}</td>' in text
    ap = fresh.average_precision("acc")
    assert f"(AP {ap.average_precision:.3f})" in text  # the chart's legend, kept as SVG text


@pytest.mark.slow
def test_a_selections_report_compares_the_candidates(con, datasets, tmp_path):
    load_text_csv(con, "d", datasets / "vote.csv")
    candidates = [wml.NaiveBayes(), wml.TAN(), Candidate(wml.NaiveBayes(), features="top:4")]
    selection = wml.select_model(con, "d", "Class", candidates, folds=5, name="best")
    page = selection.report(tmp_path / "selection.html")
    text = page.read_text()
    for row in selection.comparison.to_pylist():
        assert row["description"] in text and f"{row['value']:.4f}" in text
    assert len(selection.curves) == 3
    ax = selection.plot_roc()
    for line, curve in zip(ax.lines[1:], selection.curves.values(), strict=True):
        assert list(map(float, line.get_xdata())) == curve.column("fpr").to_pylist()
    found, _ = rendered(page, tmp_path)
    assert found["errors"] == [] and [f["caption"] for f in found["figures"]] == ["ROC"]


HOSTILE = {
    "image": "<img src=x onerror=\"document.title='pwned'\">",
    "script": "<script>document.title='pwned'</script>",
    "quotes": "\"'><b>bold",
    "math": "$x$ and $y$",
}
"""Hostile text a user's data may hold: markup that runs a handler, a script, quotes that end
an attribute, and TeX."""
PAGE_TAGS = {"body", "details", "div", "figcaption", "figure", "h1", "h2", "h3", "pre"}
PAGE_TAGS |= {"summary", "svg", "table", "tbody", "td", "th", "tr"}
"""The elements a report's body is made of (an SVG's insides aside)."""


def hostile_data(n: int = 300, seed: int = 1) -> pa.Table:
    """Rows whose class labels and column names are :data:`HOSTILE` text (the class column
    too), each attribute telling something of the class."""
    rng = np.random.default_rng(seed)
    labels = [HOSTILE["image"], HOSTILE["script"], HOSTILE["quotes"]]
    truth = rng.integers(0, 3, n)
    columns = {
        name: [f"{value}{(t + rng.integers(0, 2)) % 3}" for t in truth]
        for name, value in ((HOSTILE["math"], "a"), (HOSTILE["image"], "<i>b"))
    }
    return pa.table({**columns, HOSTILE["script"]: [labels[t] for t in truth]})


@pytest.mark.filterwarnings("error:Tight layout not applied:UserWarning")  # long labels fit
def test_hostile_labels_and_names_show_as_text_and_run_nothing(con, tmp_path):
    con.register("hostile", hostile_data())
    target = HOSTILE["script"]
    ev = wml.cross_validate(con, "hostile", target, wml.TAN(), folds=3)
    model = wml.TAN().fit(con, "hostile", target, name=HOSTILE["quotes"])
    page = ev.report(tmp_path / "report.html", model=model, positive=HOSTILE["image"])
    found, _ = rendered(page, tmp_path)
    heading = page.read_text().split("<title>", 1)[1].split("</title>", 1)[0]
    assert found["title"] == html.unescape(heading) != "pwned"
    assert found["errors"] == [] and set(found["tags"]) <= PAGE_TAGS
    for text in HOSTILE.values():
        assert text in found["text"]
    for card in (model._repr_html_(), ev._repr_html_()):  # a notebook's cards
        markup = re.sub(r"<svg.*?</svg>", "", card, flags=re.S)
        assert HOSTILE["image"] not in markup and HOSTILE["script"] not in markup
        assert "mathjax_ignore" in markup  # no TeX typesetting of $x$ and $y$
    assert HOSTILE["image"] in html.unescape(model._repr_html_())


def test_report_refuses_a_model_that_is_not_a_fitted_classifier(con, tmp_path):
    con.register("generated", wml.synthetic.tan_data(400, 3, n_classes=2, strings=True, seed=2))
    ev = wml.cross_validate(con, "generated", "class", wml.NaiveBayes(), folds=3)
    for wrong, expected in (("m", "got str 'm'"), (wml.NaiveBayes(), "got NaiveBayes")):
        with pytest.raises(
            wml.ParameterError, match=r"report\(model=\.\.\.\) expected a fitted"
        ) as e:
            ev.report(tmp_path / "r.html", model=wrong)
        assert expected in str(e.value)
    other = wml.NaiveBayes().fit(con, "generated", "a0", name="other")
    with pytest.raises(wml.ParameterError, match="expected a model of target 'class'"):
        ev.report(tmp_path / "r.html", model=other)
    assert not (tmp_path / "r.html").exists()


def test_report_path_is_checked_before_anything_is_computed(con, tmp_path, monkeypatch):
    con.register("generated", wml.synthetic.tan_data(400, 3, n_classes=2, strings=True, seed=2))
    ev = wml.cross_validate(con, "generated", "class", wml.NaiveBayes(), folds=3)
    monkeypatch.setattr(type(ev), "measure", lambda *a, **k: pytest.fail("computed"))
    missing = tmp_path / "some" / "missing" / "report.html"
    with pytest.raises(wml.ParameterError, match=re.escape(f"{str(missing.parent)!r} does not")):
        ev.report(missing)
    with pytest.raises(wml.ParameterError, match="is a folder; expected a file name"):
        ev.report(tmp_path)


def test_a_connection_given_as_the_report_path_is_a_typed_error(con, tmp_path, monkeypatch):
    """An evaluation reads through the connection it was made on: ``report(con)`` (as the
    models' methods take one first) names what report expects instead of a TypeError, and
    so does a selection's report."""
    con.register("generated", wml.synthetic.tan_data(300, 3, n_classes=2, strings=True, seed=2))
    ev = wml.cross_validate(con, "generated", "class", wml.NaiveBayes(), folds=3)
    chosen = wml.select_model(con, "generated", "class", [wml.NaiveBayes()], folds=3)
    monkeypatch.setattr(type(ev), "measure", lambda *a, **k: pytest.fail("computed"))
    for report in (ev.report, chosen.report):
        with pytest.raises(wml.ParameterError, match=r"expected a file path .* got DuckDB"):
            report(con)


def test_cli_report_into_missing_folders_creates_them_and_checks_first(tmp_path, capsys):
    from conftest import FIXTURES

    from warehouse_ml.cli import main

    tennis = str(FIXTURES / "play_tennis.csv")
    db = str(tmp_path / "w.duckdb")
    page = tmp_path / "some" / "missing" / "report.html"
    args = ["evaluate", tennis, "--target", "play", "--keys", "day", "--folds", "3", "--db", db]
    assert main([*args, "--report", str(page)]) == 0
    assert page.is_file() and f"wrote the report to {page}" in capsys.readouterr().out
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert main([*args, "--report", str(blocked / "report.html")]) == 1
    printed = capsys.readouterr()
    assert "Traceback" not in printed.err and str(blocked) in printed.err
    assert "cross-validation" not in printed.out  # refused before evaluating


def sql_blocks(text: str) -> dict[str, str]:
    """Each measure's SQL a report shows, by measure name, as a SQL client would read it."""
    found = re.findall(r"<summary>SQL of (.*?)</summary><pre>(.*?)</pre>", text, re.S)
    return {html.unescape(name): html.unescape(sql) for name, sql in found}


def test_a_temporary_evaluations_report_names_the_model_and_the_data_and_no_temporary_table(
    con, tmp_path
):
    data = wml.synthetic.tan_data(600, 4, n_classes=2, strings=True, seed=3)
    con.register("customers", data)
    reports = {
        "4-fold cross-validation of NaiveBayes(alpha=1.0, prior_alpha=0.0, m=0.0, "
        "var_smoothing=1e-09, block_size=4) on customers": wml.cross_validate(
            con, "customers", "class", wml.NaiveBayes(), folds=4
        ),
        "Leave-one-out cross-validation of NaiveBayes(alpha=2.0, prior_alpha=0.0, m=0.0, "
        "var_smoothing=1e-09, block_size=4) on an Arrow table": wml.cross_validate_leave_one_out(
            con, data, "class", wml.NaiveBayes(alpha=2.0)
        ),
        "Hold-out evaluation of model 'churn_nb' (naive_bayes) on customers": wml.evaluate(
            con, wml.NaiveBayes().fit(con, data, "class", name="churn_nb"), "customers"
        ),
    }
    for subject, ev in reports.items():
        assert ev.subject == subject
        text = ev.report(tmp_path / "r.html").read_text()
        assert f"<title>{html.escape(subject)}</title>" in text
        assert f"<h1>{html.escape(subject)}</h1>" in text
        temporary = ev.predictions.parts[-1]
        assert temporary.casefold() not in text.casefold() and "predictions table" not in text
        blocks = sql_blocks(text)
        assert len(blocks) >= 10 and all('FROM "predictions"' in s for s in blocks.values())
        assert "relation named predictions" in text
        ev.drop()


def test_a_reports_sql_over_predictions_reproduces_its_numbers(con, tmp_path):
    """The SQL a report shows, run over a view named predictions of the evaluation's table,
    gives the report's numbers; a weighted evaluation's SQL weighs its rows as its measures
    do."""
    data = wml.synthetic.tan_data(800, 4, n_classes=2, strings=True, seed=4)
    weights = pa.array(np.random.default_rng(4).integers(1, 5, data.num_rows).astype(float))
    con.register("rows", data.append_column("w", weights))
    for weighted in (False, True):
        ev = wml.cross_validate(
            con, "rows", "class", wml.NaiveBayes(), folds=3, sample_weight="w",
            weighted_measures=weighted,
        )  # fmt: skip
        blocks = sql_blocks(ev.report(tmp_path / "r.html").read_text())
        con.execute(f"CREATE OR REPLACE TEMP VIEW predictions AS FROM {ev.predictions}")
        accuracy = con.sql(blocks["accuracy"]).to_arrow_table().to_pylist()[0]
        assert accuracy["accuracy"] == pytest.approx(ev.accuracy().accuracy, abs=1e-12)
        log_score = con.sql(blocks["log_score"]).to_arrow_table().to_pylist()[0]
        assert log_score["mean"] == pytest.approx(ev.log_score().mean, abs=1e-12)
        ev.drop()


def test_a_kept_evaluations_report_names_its_tables_and_its_subject_outlives_the_process(
    con, tmp_path
):
    con.register("customers", wml.synthetic.tan_data(400, 3, n_classes=2, strings=True, seed=2))
    ev = wml.cross_validate(con, "customers", "class", wml.TAN(), folds=3, keep=True)
    again = wml.load_evaluation(con, ev.id)
    assert again.subject == ev.subject
    assert ev.subject.startswith("3-fold cross-validation of TAN(alpha=0.5,")
    text = again.report(tmp_path / "r.html").read_text()
    assert f"<h1>{html.escape(ev.subject)}</h1>" in text
    assert "predictions table" in text and str(ev.predictions) in html.unescape(text)
    assert all(ev.predictions.parts[-1] in s for s in sql_blocks(text).values())
    assert "relation named predictions" not in text
    wml.drop_evaluation(con, ev.id)


@pytest.mark.parametrize("kind", KIND_CLASSES, ids=lambda k: k.kind)
def test_every_kinds_report_shows_its_classes_and_ends_with_its_own_model_section(
    con, tmp_path, kind
):
    """The card's classes table gives each class's training rows and their share, read the
    same way for every family (a logistic regression's classes table holds its intercepts
    where Naive Bayes holds log priors, which the card must not show as priors). The section
    a model states of itself (model_section: tables, pictures, texts) is on the page under
    its title, none empty; a linear model's coefficients are its coef_ and intercept_ by
    term, k-NN's section its settings and stored rows."""
    data = wml.synthetic.tan_data(300, 3, n_classes=3, strings=True, seed=7)
    data = data.append_column("size", pa.array(np.random.default_rng(7).normal(size=300)))
    con.register("generated", data)
    ev = wml.cross_validate(con, "generated", "class", kind(), folds=2)
    model = kind().fit(con, "generated", "class", name="card")
    text = ev.report(tmp_path / "report.html", model=model).read_text()
    counts = collections.Counter(data["class"].to_pylist())
    assert "<h3>Classes</h3>" in text
    for label, n in counts.items():
        share = n / data.num_rows
        assert f'<td>{label}</td><td class="n">{n}</td><td class="n">{share:.4f}</td>' in text
    section = model.model_section(con)
    assert section.parts and f"<h2>{html.escape(section.title)}</h2>" in text
    after = text.split(f"<h2>{html.escape(section.title)}</h2>", 1)[1]
    for part in section.parts:
        if isinstance(part, sections.TablePart):
            assert part.table.num_rows > 0 and f"<h3>{html.escape(part.title)}</h3>" in after
        elif isinstance(part, sections.PicturePart):
            assert f"<figcaption>{html.escape(part.caption)}</figcaption>" in after
        else:
            assert part.text and f"<pre>{html.escape(part.text)}</pre>" in after
    if hasattr(model, "coef_"):
        (table,) = [p.table for p in section.parts if p.title == "Coefficients by term"]
        expected = np.column_stack([model.intercept_, model.coef_])
        got = np.array(table["coefficient"].to_pylist()).reshape(expected.shape)
        np.testing.assert_array_equal(got, expected)
        assert table["term"].to_pylist()[: expected.shape[1]] == [
            "(intercept)",
            *model.design_names_,
        ]
        numeric = table.filter(pa.compute.equal(table["term"], "size")).to_pylist()[0]
        column = data["size"].to_numpy()
        assert numeric["mean"] == pytest.approx(column.mean(), abs=1e-12)
        assert numeric["scale"] == pytest.approx(column.std(), abs=1e-12)
    if hasattr(model, "stored_rows_"):
        assert str(model.stored_rows_) in after and f">{model.k}<" in after
