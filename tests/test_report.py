"""The one-file HTML report (evaluation/report.py) as a person sees it: rendered by headless
Chromium (Debian's ``chromium``, installed by .ci/run) with the network off, its console free
of errors, every chart decoded to a non-zero size and not blank in a screenshot; and the
numbers it prints are the API's."""

from __future__ import annotations

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

import warehouse_ml as wml
from warehouse_ml.evaluation.selection import Candidate

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
      x: box.x + window.scrollX, y: box.y + window.scrollY, w: box.width, h: box.height });
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


def rendered(page: Path, tmp_path: Path) -> tuple[dict, object]:
    """What Chromium measured of ``page`` (console errors, each figure's box, the page height,
    the title, the elements of the body and its text, after every script ran) and a screenshot
    of the whole page as an RGBA array."""
    probed = tmp_path / "probed.html"
    probed.write_text(page.read_text().replace("</head>", PROBE + "</head>", 1))
    url = probed.as_uri()
    dom = browse(tmp_path, "--dump-dom", url)
    probe = re.search(r'<pre id="wml-probe"[^>]*>(.*?)</pre>', dom, re.S).group(1)
    found = json.loads(html.unescape(probe))
    shot = tmp_path / "shot.png"
    browse(tmp_path, f"--window-size=1200,{found['height'] + 40}", f"--screenshot={shot}", url)
    return found, matplotlib.image.imread(shot)


def shows_every_chart(page: Path, tmp_path: Path, captions: list[str]) -> None:
    """``page`` opened offline in Chromium: no external reference, no console or resource
    error, the figures captioned ``captions`` in order, each an SVG of non-zero size whose
    region of the screenshot is not blank."""
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


CHARTS = ["confusion matrix", "ROC", "precision-recall", "lift and gains", "calibration"]


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


def test_the_reports_numbers_are_the_apis(con, datasets, tmp_path):
    load_text_csv(con, "d", datasets / "car.csv")
    ev = wml.cross_validate(con, "d", "class", wml.NaiveBayes())
    model = wml.NaiveBayes().fit(con, "d", "class", name="car_nb")
    loss = [[0.0 if i == j else 1.0 + i for j in range(4)] for i in range(4)]
    page = ev.report(tmp_path / "r.html", model=model, positive="acc", loss=loss)
    text = page.read_text()
    ev = dataclasses.replace(ev)  # a fresh object: every number computed again, on its own
    accuracy = ev.accuracy()
    expected = [
        f"{accuracy.accuracy:.4f} [{accuracy.accuracy_low:.4f}, {accuracy.accuracy_high:.4f}]",
        f"{accuracy.kappa:.4f}",
        f"{ev.auc('acc').auc:.4f}",
        f"{ev.log_score().mean:.4f}",
        f"{ev.brier_score().mean:.4f}",  # four classes: over every class
    ]
    for figure in expected:
        assert figure in text
    for row in ev.class_measures().to_pylist():
        assert f'<td>{row["class_label"]}</td><td class="n">{row["support"]}</td>' in text
        assert f'<td class="n">{row["f_measure"]:.4f}</td>' in text
    summary = ev.expected_loss(loss)
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
    ap = ev.average_precision("acc")
    assert f"(AP {ap.average_precision:.3f})" in text  # the chart's legend, kept as SVG text


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
