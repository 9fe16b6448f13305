"""``warehouse-ml evaluate``: cross-validation or a hold-out evaluation, and its printed
report."""

from __future__ import annotations

import argparse
from pathlib import Path

import pyarrow as pa

import warehouse_ml as wml
from warehouse_ml.cli.commands import model_from, split_names
from warehouse_ml.cli.display import print_table, write_table
from warehouse_ml.engines import DuckDBWarehouse
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation import crossval


def _section(title: str) -> None:
    print(f"\n== {title}")


def cmd_evaluate(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """Cross-validate a model kind on a source (or evaluate a stored model on a hold-out source)
    and print the report; optionally write every table."""
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
            features=split_names(args.features), categorical=split_names(args.categorical),
            numeric=split_names(args.numeric),
            allow_high_cardinality=args.allow_high_cardinality,
        )  # fmt: skip
        how = f"{args.folds}-fold cross-validation of {args.kind} on {args.source}"
    classes = list(evaluation.classes)
    positive = args.positive if args.positive is not None else classes[-1]
    if args.positive is not None and positive not in classes:
        positive = next((c for c in classes if str(c) == args.positive), positive)
    accuracy = evaluation.accuracy(level=args.level)
    tables: dict[str, pa.Table] = {
        "predictions": evaluation.to_arrow(),
        "confusion": evaluation.confusion_matrix(),
        "class_measures": evaluation.class_measures(),
        "averaged_measures": evaluation.averaged_measures(),
        "roc": evaluation.roc_curve(positive),
        "lift": evaluation.lift_table(positive),
    }
    kept = f", kept as evaluation {evaluation.id!r}" if args.keep else ""
    print(f"{how}: {accuracy.n} rows, classes {classes}{kept}")
    _section("confusion matrix (rows: true class, columns: predicted)")
    confusion = tables["confusion"].to_pylist()
    width = max(len(str(c)) for c in classes) + 2
    print(" " * width + "".join(str(c).rjust(width) for c in classes))
    for i, label in enumerate(classes):
        cells = [r["n"] for r in confusion if r["true_index"] == i]
        print(str(label).ljust(width) + "".join(str(n).rjust(width) for n in cells))
    _section("accuracy")
    print(
        f"accuracy {accuracy.accuracy:.4f}  ({accuracy.level:.0%} interval "
        f"[{accuracy.accuracy_low:.4f}, {accuracy.accuracy_high:.4f}])  "
        f"error {accuracy.error:.4f}  "
        f"kappa {accuracy.kappa:.4f}"
    )
    _section("per class")
    print_table(tables["class_measures"])
    print_table(tables["averaged_measures"])
    _section(f"ranking, positive class {positive!r}")
    auc = evaluation.auc(positive)
    ap = evaluation.average_precision(positive)
    print(
        f"AUC {auc.auc:.4f}   average precision {ap.average_precision:.4f}   "
        f"3-point AP {ap.interpolated_average_precision:.4f}"
    )
    if len(classes) > 2:
        ovr = evaluation.ovr_auc()
        print(f"one-vs-rest AUC: macro {ovr.macro_auc:.4f}, class-weighted {ovr.weighted_auc:.4f}")
    _section("lift by decile")
    print_table(tables["lift"])
    _section("scoring rules")
    log_score, brier = evaluation.log_score(), evaluation.brier_score()
    print(f"log score: sum {log_score.total:.4f}, mean {log_score.mean:.4f} (natural log)")
    print(f"Brier score: mean {brier.mean:.4f}")
    if args.output_dir:
        folder = Path(args.output_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for name, table in tables.items():
            write_table(table, str(folder / f"{name}.{args.format}"))
        print(f"\nwrote {', '.join(tables)} as .{args.format} to {folder}")
