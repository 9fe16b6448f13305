"""``warehouse-ml evaluate``: cross-validation or a hold-out evaluation, and its printed
report."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pyarrow as pa

import warehouse_ml as wml
from warehouse_ml.cli.commands import feature_choice, model_from, split_names
from warehouse_ml.cli.display import print_table, write_table
from warehouse_ml.engines import DuckDBWarehouse
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation import crossval, metrics, report


def _reported(entry: metrics.Measure, k: int) -> bool:
    """Whether the report shows or writes ``entry`` for a problem of ``k`` classes."""
    return entry.report is not None and entry.report.applies(k)


def _options(entry: metrics.Measure, settings: dict[str, Any]) -> dict[str, Any]:
    """The report's settings the entry takes as options (``Report.settings``)."""
    return {name: settings[name] for name in entry.report.settings} if entry.report else {}


def _print_report(
    reported: list[metrics.Measure], results: dict[str, Any], settings: dict[str, Any]
) -> None:
    """Each measure's text (or table) under its section's heading, in the registry's order;
    texts of one section marked ``same_line`` share the previous text's line."""
    heading = None
    line: list[str] = []
    for entry in reported:
        report = entry.report
        if report is None or report.section is None:
            continue
        title = report.section.format(**settings)
        if line and (title != heading or not report.same_line or report.text is None):
            print("   ".join(line))
            line = []
        if title != heading:
            print(f"\n== {title}")
            heading = title
        if report.text is None:
            print_table(results[entry.name])
        else:
            line.append(report.text(results[entry.name]))
    if line:
        print("   ".join(line))


def _report_destination(path: str) -> Path:
    """The ``--report`` file, checked before anything is evaluated: its missing folders are
    created (as ``--output-dir`` is), then :func:`report.destination` checks it."""
    out = Path(path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ParameterError(
            f"--report {path!r}: cannot create its folder {str(out.parent)!r}: "
            f"{error.strerror or error}"
        ) from error
    return report.destination(out)


def cmd_evaluate(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """Cross-validate a model kind on a source (or evaluate a stored model on a hold-out source)
    and print the report; optionally write every table."""
    page_path = _report_destination(args.report) if args.report else None
    model = None
    if args.model:
        model = wml.load(con, args.model)
        evaluation = crossval.evaluate(
            con, model, args.source, keys=split_names(args.keys) or (), keep=args.keep
        )
        how = f"model {args.model!r} on hold-out {args.source}"
    else:
        if not args.target:
            raise ParameterError("evaluate needs --target (or --model to evaluate a stored model)")
        evaluation = crossval.cross_validate(
            con, args.source, args.target, model_from(args.kind, args), folds=args.folds,
            stratified=not args.no_stratify, seed=args.seed, key=args.keys, keep=args.keep,
            features=feature_choice(args.features), categorical=split_names(args.categorical),
            numeric=split_names(args.numeric),
            allow_high_cardinality=args.allow_high_cardinality, sample_weight=args.sample_weight,
        )  # fmt: skip
        how = f"{args.folds}-fold cross-validation of {args.kind} on {args.source}"
    classes = list(evaluation.classes)
    positive = args.positive if args.positive is not None else classes[-1]
    if args.positive is not None and positive not in classes:
        positive = next((c for c in classes if str(c) == args.positive), positive)
    settings = {"positive": positive, "level": args.level}
    reported = [e for e in metrics.registry.entries() if _reported(e, len(classes))]
    results = {e.name: evaluation.measure(e.name, **_options(e, settings)) for e in reported}
    tables: dict[str, pa.Table] = {"predictions": evaluation.to_arrow()}
    for entry in reported:
        if entry.report is not None and entry.report.table is not None:
            tables[entry.report.table] = results[entry.name]
    kept = f", kept as evaluation {evaluation.id!r}" if args.keep else ""
    print(f"{how}: {results['accuracy'].n} rows, classes {classes}{kept}")
    _print_report(reported, results, settings)
    if args.output_dir:
        folder = Path(args.output_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for name, table in tables.items():
            write_table(table, str(folder / f"{name}.{args.format}"))
        print(f"\nwrote {', '.join(tables)} as .{args.format} to {folder}")
    loss = json.loads(args.loss) if args.loss else None
    if loss is not None:
        summary = evaluation.expected_loss(loss)
        print(
            f"\n== expected loss\nprediction loss {summary.prediction_loss:.4f}   decision "
            f"loss {summary.decision_loss:.4f}   expected {summary.expected_loss:.4f}"
        )
    if page_path is not None:
        page = evaluation.report(page_path, model=model, positive=positive, loss=loss, title=how)
        print(f"\nwrote the report to {page}")
