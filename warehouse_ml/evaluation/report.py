"""An evaluation's notebook card and its one-file HTML report.

:class:`Pictures` is a base of :class:`warehouse_ml.evaluation.result.Evaluation` (as
models/inspection/explaining.py's ``Explainer`` is of a classifier), over the charts of
evaluation/plots.py: ``_repr_html_`` is the summary card a notebook shows; :meth:`Pictures.report`
writes a single self-contained HTML file (charts as inline SVG, no script, no network) with
every number, the SQL that reproduces it, and, given the fitted model, its card and its own
section (models/inspection/sections.py: a family's attribute ranking, tree, coefficients or
neighbours); :func:`selection_report` is a model selection's page. Every number comes from
the SQL measures (metrics package), every chart from :class:`~warehouse_ml.evaluation.plots.Plots`.
"""

from __future__ import annotations

import dataclasses
import html
import math
import os
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from warehouse_ml import charts
from warehouse_ml.engines import session
from warehouse_ml.engines.sources import open_source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation import metrics
from warehouse_ml.evaluation.metrics.spec import resolve
from warehouse_ml.evaluation.plots import CURVE_POINTS, Plots
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import CountSummaries
from warehouse_ml.models.inspection.sections import ModelSection, PicturePart, TablePart
from warehouse_ml.models.scoring.names import PREDICTION
from warehouse_ml.sqlgen import templates
from warehouse_ml.store import ownership

PLACEHOLDER = templates.TableName(("predictions",))
"""The relation a temporary evaluation's report shows each measure's SQL over (its own table
ends with its connection): a table or view of the predictions' columns under that name."""


class Pictures(Plots):
    """The card and the report of an evaluation (module docstring), over its charts. Relies on
    the evaluation's ``warehouse``, ``predictions``, ``target``, ``probability_columns``,
    ``measured``, ``id``, ``weight``, ``kept`` and ``subject``, and what :class:`Plots` relies
    on."""

    warehouse: Any
    predictions: Any
    target: str
    probability_columns: tuple[str, ...]
    measured: dict[tuple[str, str], Any]
    id: str
    weight: str | None
    kept: bool
    subject: str

    def _repr_html_(self) -> str:
        """The notebook's card: the key figures and the ROC curve (without matplotlib, the
        figures alone)."""
        accuracy = self.measure("accuracy")
        figures = _figures(self, accuracy, self.chart_class(None))
        rows = _rows(figures)
        picture = _picture(self.plot_roc, (4.0, 3.2)) if charts.available() else ""
        return (
            f'<div class="{charts.CARD_CLASS}" '
            f'style="display:flex;gap:16px;align-items:flex-start">'
            f"<table>{rows}</table><div>{picture}</div></div>"
        )

    def report(
        self,
        path: str | Path,
        *,
        model: Any = None,
        positive: Any = None,
        loss: Sequence[Sequence[float]] | None = None,
        title: str | None = None,
    ) -> Path:
        """Write a self-contained HTML report of this evaluation to ``path`` and return it.

        Titled ``title``, else the evaluation's subject (the model and the data). Sections: the
        model card when ``model`` (a fitted classifier) is given (source, rows, classes with their
        training rows and share of them, attributes with type and treatment, settings); accuracy
        with its Wilson interval, kappa, the confusion matrix, per-class precision, recall and F,
        AUC, log and Brier scores, and under a ``loss`` matrix (L[true][predicted]) the mean loss of
        the predictions and of the minimum-expected-loss decisions; ROC, recall-precision, lift and
        calibration charts of ``positive`` (default as :meth:`plot_roc`); with a model, its own
        section (``model.model_section``: Naive Bayes' attribute ranking, TAN's and its tree, a
        decision tree's top levels drawn with the whole tree as rules, a linear model's coefficients
        by term, k nearest neighbours' settings and coordinates); and under each number the SQL that
        reproduces it. The report names no object that ends with the connection: a temporary
        evaluation's SQL reads its predictions as a relation named ``predictions``
        (:data:`PLACEHOLDER`; the card says so), a kept one's (``keep=True``) its table.
        """
        out = destination(path)
        _check_model(self, model)
        label = self.chart_class(positive)
        _rank_once(self, label)
        ranked = isinstance(model, CountSummaries)
        ranking = model.attribute_ranking(self.warehouse) if ranked else None
        body = [_card(self, model, ranking), _numbers(self, label, loss), _charts(self, label)]
        if model is not None:
            body.append(_model_section(model.model_section(self.warehouse)))
        heading = html.escape(title or self.subject or f"Evaluation of {self.target}")
        page = _PAGE.format(title=heading, body="\n".join(body))
        out.write_text(page, encoding="utf-8")
        return out


def destination(path: str | Path) -> Path:
    """``path`` as the file a report is written to, checked before anything is computed: a
    file name (text or a path, not a folder) in an existing folder the process may write to;
    else a ParameterError naming the path. (A report takes no connection: an evaluation reads
    through the one it was made on.)"""
    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(
            f"report path: expected a file path (str or pathlib.Path), got "
            f"{type(path).__name__}; a report reads through the connection its evaluation was "
            "made on, so it takes none: report('report.html')"
        )
    out = Path(path)
    if out.is_dir():
        raise ParameterError(
            f"report path {str(out)!r} is a folder; expected a file name, e.g. "
            f"{str(out / 'report.html')!r}"
        )
    folder = out.parent
    if not folder.is_dir():
        raise ParameterError(
            f"report path {str(out)!r}: its folder {str(folder)!r} does not exist; expected a "
            "file in an existing folder"
        )
    if not os.access(folder, os.W_OK):
        raise ParameterError(f"report path {str(out)!r}: the folder {str(folder)!r} is read-only")
    return out


def _check_model(ev: Pictures, model: Any) -> None:
    """A report's ``model``: None, or a fitted classifier of the evaluation's target."""
    if model is None:
        return
    if not isinstance(model, Classifier) or model.record_ is None:
        shown = f"{type(model).__name__} {model!r}"
        raise ParameterError(
            f"report(model=...) expected a fitted classifier (e.g. wml.load(con, name)) or "
            f"None, got {shown}"
        )
    if model.record_.target != ev.target:
        raise ParameterError(
            f"report(model=...) expected a model of target {ev.target!r}, got model "
            f"{model.record_.name!r} of target {model.record_.target!r}"
        )


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }}
h1 {{ font-size: 1.6em; }} h2 {{ border-bottom: 1px solid #ccc; padding-bottom: .2em; }}
table {{ border-collapse: collapse; margin: .5em 0; }}
th, td {{ border: 1px solid #ddd; padding: .25em .6em; text-align: left; }}
th {{ background: #f4f6f8; }} td.n {{ text-align: right; font-variant-numeric: tabular-nums; }}
.charts {{ display: grid; grid-template-columns: 1fr 1fr; gap: 1em; }}
figure {{ margin: 0; }} figure svg {{ width: 100%; max-width: 760px; height: auto; }}
figure.natural {{ overflow-x: auto; }} figure.natural svg {{ width: auto; max-width: none; }}
details pre {{ background: #f7f7f7; padding: .6em; white-space: pre-wrap; overflow-wrap: anywhere;
  font-size: .8em; }}
.note {{ color: #555; font-size: .9em; max-width: 60em; }}
</style></head>
<body><h1>{title}</h1>
{body}
</body></html>
"""


RANKED_ONCE = ("roc_curve", "roc_auc", "precision_recall_curve", "average_precision")
"""The measures a report computes from one table of the positive class's cumulative counts."""


def _rank_once(ev: Pictures, positive: Any) -> None:
    """Compute the report's ranking measures of ``positive`` (:data:`RANKED_ONCE`) from one
    temporary table of its cumulative counts (one sort of the scores instead of one a
    measure), into the evaluation's measure cache; the table is dropped before returning."""
    options = {
        "roc_curve": {"positive": positive, "max_points": CURVE_POINTS},
        "precision_recall_curve": {"positive": positive, "max_points": CURVE_POINTS},
        "roc_auc": {"positive": positive},
        "average_precision": {"positive": positive},
    }
    if all(metrics.registry.measure_key(n, options[n]) in ev.measured for n in RANKED_ONCE):
        return
    probabilities = dict(zip(ev.classes, ev.probability_columns, strict=True))
    with (
        session(ev.warehouse) as warehouse,
        open_source(warehouse, ev.predictions) as src,
        ownership.work_tables(
            warehouse, owner_kind="evaluation", owner=ev.id or "report", created_by="report",
            version=f"report{uuid.uuid4().hex[:12]}",
        ) as work,
    ):  # fmt: skip
        try:
            spec = resolve(src, ev.target, probabilities, PREDICTION)
            index = spec.index_of(positive)
            counts = work.table("counts")
            query = metrics.ranking.cumulative_counts(spec, src, index)
            warehouse.run_tree(templates.create_table_as(counts, query))
            counted = dataclasses.replace(spec, counted={index: counts})
            for name in RANKED_ONCE:
                entry = metrics.registry.entry(name)
                value = metrics.registry.run(entry, warehouse, counted, src, options[name])
                ev.measured[metrics.registry.measure_key(name, options[name])] = value
        finally:
            work.drop()


def _picture(draw: Callable[..., Any], size: tuple[float, float] = (5.0, 4.0)) -> str:
    """An inline SVG of ``draw(ax=...)``."""
    return charts.svg(lambda ax: draw(ax=ax), size)


def _number(value: Any, digits: int = 4) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "&ndash;"
    return f"{value:.{digits}f}" if isinstance(value, float) else html.escape(str(value))


def _figures(ev: Pictures, accuracy: Any, positive: Any) -> list[tuple[str, str]]:
    """The key figures: name and formatted value (the folds of a cross-validation only)."""
    auc = ev.measure("roc_auc", positive=positive).auc
    folds = [("folds", _number(ev.folds))] if ev.folds > 1 else []
    return [
        ("rows", _number(accuracy.n)),
        *folds,
        (
            "accuracy",
            f"{_number(accuracy.accuracy)} [{_number(accuracy.accuracy_low)}, "
            f"{_number(accuracy.accuracy_high)}] at {accuracy.level:g}",
        ),
        ("kappa", _number(accuracy.kappa)),
        (f"AUC of {positive}", _number(auc)),
        ("log score (nats/row)", _number(ev.measure("log_score").mean)),
        (
            _brier_name(ev, positive),
            _number(ev.measure("brier_score", **_brier(ev, positive)).mean),
        ),
    ]


def _brier(ev: Pictures, positive: Any) -> dict[str, Any]:
    """The Brier score's options: of ``positive`` for two classes, over every class else."""
    return {"positive": positive} if len(ev.classes) == 2 else {}


def _brier_name(ev: Pictures, positive: Any) -> str:
    return f"Brier score of {positive}" if len(ev.classes) == 2 else "Brier score (all classes)"


def _sql(ev: Pictures, name: str, **options: Any) -> str:
    """The SQL of measure ``name`` (weighing rows as the evaluation's measures do) as a
    collapsed block: over the predictions table of a kept evaluation, over
    :data:`PLACEHOLDER` of a temporary one."""
    probabilities = dict(zip(ev.classes, ev.probability_columns, strict=True))
    with session(ev.warehouse) as warehouse, open_source(warehouse, ev.predictions) as src:
        shown = src if ev.kept else dataclasses.replace(src, relation=PLACEHOLDER.to_table())
        spec = resolve(shown, ev.target, probabilities, PREDICTION, ev.weight)
        query = metrics.registry.entry(name).build(spec, shown, **options)
        text = templates.generate(query, warehouse.dialect)
    summary = f"<summary>SQL of {html.escape(name)}</summary>"
    return f"<details>{summary}<pre>{html.escape(text)}</pre></details>"


def _rows(facts: Sequence[tuple[str, str]]) -> str:
    """Table rows of (name, value) facts: the name is text (escaped here, as it may hold a
    class label), the value HTML already made safe (:func:`_number`, ``html.escape``)."""
    return "".join(f"<tr><th>{html.escape(k)}</th><td>{v}</td></tr>" for k, v in facts)


def _cell(value: Any) -> str:
    """A table cell: numbers right-aligned."""
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    return f'<td class="n">{_number(value)}</td>' if numeric else f"<td>{_number(value)}</td>"


def _table(table: pa.Table, columns: Sequence[str]) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    rows = "".join(
        "<tr>" + "".join(_cell(r[c]) for c in columns) + "</tr>" for r in table.to_pylist()
    )
    return f"<table><tr>{head}</tr>{rows}</table>"


def _card(ev: Pictures, model: Any, ranking: pa.Table | None) -> str:
    """The model card (with a model) or the evaluation's facts."""
    facts = [
        *_predictions(ev),
        ("target", html.escape(ev.target)),
        ("classes", html.escape(", ".join(str(c) for c in ev.classes))),
    ]
    if model is None:
        return f"<h2>Evaluation</h2><table>{_rows(facts)}</table>"
    record = model.record
    settings = record.smoothing.items()  # the constructor's arguments (models/base.py)
    facts = [
        ("model", html.escape(f"{record.name} ({record.kind})")),
        ("trained on", html.escape(f"{record.source}, {record.n_rows} rows")),
        ("settings", html.escape(", ".join(f"{k}={v}" for k, v in settings if v is not None))),
        *facts,
    ]
    rows = _rows(facts)
    classes = model.parameters(ev.warehouse)["classes"].to_pylist()
    total = sum(float(r["n"]) for r in classes)
    class_rows = [
        {"class": r["class_label"], "rows": r["n"], "share": float(r["n"]) / total} for r in classes
    ]
    treated = {r["attribute"]: r["treatment"] for r in ranking.to_pylist()} if ranking else {}
    features = [
        {"attribute": f.name, "type": f.sql_type, "treatment": treated.get(f.name, f.kind)}
        for f in model.features_
    ]
    classes_table = _table(pa.Table.from_pylist(class_rows), ["class", "rows", "share"])
    features_table = _table(pa.Table.from_pylist(features), ["attribute", "type", "treatment"])
    return (
        f"<h2>Model</h2><table>{rows}</table>"
        f"<h3>Classes</h3>{classes_table}<h3>Attributes</h3>{features_table}"
    )


def _predictions(ev: Pictures) -> list[tuple[str, str]]:
    """The card's facts of the predictions: the table and id of a kept evaluation; of a
    temporary one, the relation its SQL reads instead."""
    if ev.kept:
        return [
            ("predictions table", html.escape(str(ev.predictions))),
            ("kept as evaluation", html.escape(ev.id)),
        ]
    placeholder = html.escape(str(PLACEHOLDER))
    note = (
        f"temporary (gone with the connection): each measure's SQL reads them as a relation "
        f"named {placeholder}"
    )
    return [("predictions", note)]


def _numbers(ev: Pictures, positive: Any, loss: Sequence[Sequence[float]] | None) -> str:
    """Accuracy, the confusion matrix, per-class measures and the scores, each with its SQL."""
    accuracy = ev.measure("accuracy")
    figures = _rows(_figures(ev, accuracy, positive))
    per_class = ev.measure("class_measures")
    columns = ["class_label", "support", "precision", "recall", "f_measure"]
    return (
        f"<h2>Performance</h2><table>{figures}</table>"
        + _sql(ev, "accuracy")
        + _sql(ev, "roc_auc", positive=positive)
        + _sql(ev, "log_score")
        + _sql(ev, "brier_score", **_brier(ev, positive))
        + f"<h3>Per class</h3>{_table(per_class, columns)}"
        + _sql(ev, "class_measures")
        + _losses(ev, loss)
    )


def _losses(ev: Pictures, loss: Sequence[Sequence[float]] | None) -> str:
    """The mean losses under ``loss`` ("" without one), with their SQL."""
    if loss is None:
        return ""
    summary = ev.measure("expected_loss", loss=loss)
    rows = [
        ("loss matrix L[true][predicted]", html.escape(str([list(r) for r in loss]))),
        ("mean loss of the predictions", _number(summary.prediction_loss)),
        ("mean loss of the minimum-expected-loss decisions", _number(summary.decision_loss)),
        ("the model's expected loss of those decisions", _number(summary.expected_loss)),
    ]
    return f"<h3>Expected loss</h3><table>{_rows(rows)}</table>" + _sql(
        ev, "expected_loss", loss=loss
    )


def _figure(svg_text: str, caption: str, css_class: str = "") -> str:
    """A captioned chart; ``css_class="natural"``: drawn at its own size (its text at the
    size it was drawn, a tree's labels readable), scrolled sideways when wider than the page."""
    shown = f' class="{css_class}"' if css_class else ""
    return f"<figure{shown}>{svg_text}<figcaption>{html.escape(caption)}</figcaption></figure>"


def _charts(ev: Pictures, positive: Any) -> str:
    roc_class = positive if len(ev.classes) == 2 else None
    pictures = [
        _figure(_picture(ev.plot_confusion_matrix), "confusion matrix"),
        _figure(_picture(lambda ax: ev.plot_roc(ax=ax, positive=roc_class, folds=True)), "ROC"),
        _figure(
            _picture(lambda ax: ev.plot_precision_recall(ax=ax, positive=positive)),
            "precision-recall",
        ),
        _figure(_picture(lambda ax: ev.plot_lift(ax=ax, positive=positive)), "lift and gains"),
        _figure(_picture(lambda ax: ev.plot_calibration(ax=ax, positive=positive)), "calibration"),
    ]
    sql = "".join(
        _sql(ev, name, positive=positive)
        for name in ("roc_curve", "precision_recall_curve", "lift_table", "calibration")
    ) + _sql(ev, "confusion_matrix")
    return f'<h2>Charts</h2><div class="charts">{"".join(pictures)}</div>{sql}'


def _model_section(section: ModelSection) -> str:
    """A fitted model's own section (models/inspection/sections.py): its title, then each
    part: a table (every column, under its title, its note beside it), a chart (drawn at its
    own size when ``natural``), or a text folded under its title; nothing for a section
    without parts."""
    if not section.parts:
        return ""
    out = [f"<h2>{html.escape(section.title)}</h2>"]
    for part in section.parts:
        if isinstance(part, TablePart):
            note = f'<div class="note">{html.escape(part.note)}</div>' if part.note else ""
            out.append(
                f"<h3>{html.escape(part.title)}</h3>"
                + _table(part.table, part.table.column_names) + note
            )  # fmt: skip
        elif isinstance(part, PicturePart):
            css = "natural" if part.natural else ""
            out.append(_figure(_picture(part.draw, part.size), part.caption, css))
        else:
            summary = f"<summary>{html.escape(part.title)}</summary>"
            out.append(f"<details>{summary}<pre>{html.escape(part.text)}</pre></details>")
    return "\n".join(out)


def selection_report(selection: Any, path: Path, title: str | None) -> Path:
    """The HTML page of a model selection (evaluation/selection.py ``Selection.report``)."""
    columns = ["candidate", "description", "kind", "measure", "value", "accuracy", "chosen"]
    roc = _figure(charts.svg(lambda ax: selection.plot_roc(ax=ax), (7.0, 5.5)), "ROC")
    positive = html.escape(str(selection.positive))
    body = (
        f"<h2>Candidates</h2>{_table(selection.comparison, columns)}"
        f"<p>Chosen and re-fitted on every row: {html.escape(repr(selection.model))}; the "
        f"comparison is table {html.escape(str(selection.table))}.</p>"
        f"<h2>Cross-validated ROC curves of {positive}</h2>{roc}"
    )
    heading = title or "Model selection"
    path.write_text(_PAGE.format(title=html.escape(heading), body=body), encoding="utf-8")
    return path
