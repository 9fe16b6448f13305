"""The command line's arguments: one sub-command per job, each with ``--db`` and
``--progress``."""

from __future__ import annotations

import argparse
import importlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from warehouse_ml.cli.choices import (
    DRIFT_BINS,
    MAX_INTEGER_CATEGORIES,
    MODEL_OPTIONS,
    RANK_BINS,
    WEIGHT_OPTION,
    class_weight,
    default_of,
    kind_name,
    kind_params,
    kinds_help,
    param_pair,
    refused_options,
    writing_option,
)
from warehouse_ml.models import kinds
from warehouse_ml.version import VERSION

DEFAULT_DB = os.environ.get("WML_DB", "warehouse.duckdb")
DEFAULT_KIND = "naive_bayes"
"""The kind ``train`` and ``evaluate`` fit without ``--kind``."""


@dataclass(frozen=True)
class Run:
    """A command's function, named by its module of ``warehouse_ml.cli`` and its name, and
    imported when the command runs: parsing the command line (and ``--help``) loads none of
    the library."""

    module: str
    function: str

    def __call__(self, args: argparse.Namespace, con: Any) -> None:
        module = importlib.import_module(f"warehouse_ml.cli.{self.module}")
        getattr(module, self.function)(args, con)


def _model_options(sub: argparse.ArgumentParser) -> None:
    """--kind, --param and the smoothing options; defaults are the Python API's, per kind
    (the registry's, listed in the command's epilog)."""
    names = [spec.kind for spec in kinds.specs()]

    def defaults(option: str) -> str:
        return ", ".join(
            f"{default_of(kind, option)} for {kind}"
            for kind in names
            if default_of(kind, option) is not None
        )

    sub.formatter_class = argparse.RawDescriptionHelpFormatter
    sub.epilog = kinds_help()
    sub.add_argument(
        "--kind",
        type=kind_name,
        help=f"model kind, any case: {', '.join(names)} (default {DEFAULT_KIND}; see below)",
    )
    sub.add_argument(
        "--param",
        type=param_pair,
        action="append",
        metavar="NAME=VALUE",
        help="any constructor parameter of the kind (repeatable; see below)",
    )
    sub.add_argument(
        "--alpha",
        type=float,
        help=f"additive smoothing of attributes (default: {defaults('alpha')})",
    )
    sub.add_argument(
        "--prior-alpha",
        type=float,
        help=f"additive smoothing of the class prior (default: {defaults('prior_alpha')})",
    )
    sub.add_argument(
        "--class-weight",
        type=class_weight,
        help="weigh every row of a class: balanced (n / (K n_class)) or JSON, e.g. "
        "'{\"yes\": 5}' (kinds with a weighted form)",
    )
    sub.add_argument(
        "--sample-weight",
        help="a numeric column of non-negative row weights: counts become sums of weights "
        "(kinds with a weighted form)",
    )
    sub.add_argument(
        "--bins",
        type=int,
        help=f"TAN: equal-frequency bins for numeric columns (default {default_of('tan', 'bins')})",
    )


def _column_options(sub: argparse.ArgumentParser) -> None:
    """Which columns are features, and how each is modelled (train and evaluate)."""
    sub.add_argument(
        "--features",
        help="comma-separated feature columns (default: all but target and keys); evaluate "
        "also takes top:K, the K of highest MI chosen inside each training fold",
    )
    sub.add_argument(
        "--categorical",
        help="comma-separated columns to count as categories, whatever their type (e.g. "
        f"integer codes with more than {MAX_INTEGER_CATEGORIES} values)",
    )
    sub.add_argument(
        "--numeric",
        help="comma-separated integer or decimal columns to model as numbers (Gaussian in NB, "
        f"bins in TAN); integers with more than {MAX_INTEGER_CATEGORIES} values are by default",
    )


def _listing_options(sub: argparse.ArgumentParser, target: Any) -> None:
    """--output (on ``target``: the command, or a group of exclusive targets) and --rows."""
    target.add_argument("--output", help="write the rows to a .parquet or .csv file")
    sub.add_argument("--rows", type=int, default=20, help="rows to print (default 20)")


def _model_and_source(sub: argparse.ArgumentParser, rows: str = "") -> None:
    """The positional MODEL and SOURCE of a command that reads a table with a stored model."""
    sub.add_argument("model", help="name of a stored model (see 'models')")
    sub.add_argument("source", help=f"table name or .parquet/.csv path {rows}".rstrip())


def _export_options(sub: argparse.ArgumentParser) -> None:
    """Options of export and its alias sql."""
    sub.add_argument(
        "--keys",
        help="comma-separated columns to carry along (default: all, when the table is in --db)",
    )
    sub.add_argument(
        "--dialect", help="any sqlglot dialect (default duckdb): postgres, spark, snowflake ..."
    )
    sub.set_defaults(run=Run("commands", "cmd_sql"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warehouse-ml",
        description="Naive Bayes and TAN classifiers trained, scored and inspected inside a "
        "DuckDB database. Sources are table names (schema.table) or .parquet/.csv paths.",
    )
    parser.add_argument("--version", action="version", version=f"warehouse-ml {VERSION}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument(
            "--db",
            default=DEFAULT_DB,
            help=f"DuckDB database file (default {DEFAULT_DB}, or $WML_DB)",
        )
        sub.add_argument(
            "--progress",
            action=argparse.BooleanOptionalAction,
            default=None,
            help="report the running statement on stderr (default: when stderr is a terminal)",
        )
        sub.add_argument(
            "--read-only",
            action="store_true",
            help="open --db read-only, so that the command runs while other processes read it "
            "(refused by a command that writes)",
        )
        return sub

    train = command("train", "learn a model from a table or file and store it in the catalog")
    train.add_argument("source", help="table name or .parquet/.csv path")
    train.add_argument("--target", required=True, help="the class column")
    train.add_argument("--name", help="model name (default <kind>_<target>)")
    train.add_argument(
        "--replace",
        action="store_true",
        help="replace the model of that name whatever its kind, target and source (without "
        "it, only a re-fit of the same kind, target and source replaces it)",
    )
    train.add_argument("--keys", help="comma-separated identifier columns, never features")
    _column_options(train)
    _model_options(train)
    train.add_argument(
        "--allow-high-cardinality",
        action="store_true",
        help="learn identifier-like categorical columns instead of refusing them",
    )
    train.set_defaults(run=Run("commands", "cmd_train"))

    predict = command("predict", "score a table or file with a stored model")
    _model_and_source(predict)
    target = predict.add_mutually_exclusive_group()
    target.add_argument("--to-view", help="create a prediction view of this name")
    target.add_argument("--to-table", help="create a prediction table of this name")
    target.add_argument("--output", help="write predictions to a .parquet or .csv file")
    predict.add_argument("--keys", help="comma-separated columns to carry along (default: all)")
    predict.add_argument(
        "--threshold", type=float, help="binary models: predict --positive when P >= threshold"
    )
    predict.add_argument(
        "--positive", help="the positive class for --threshold (default: the second class)"
    )
    predict.add_argument(
        "--loss", help='loss matrix as JSON, L[true][predicted], e.g. "[[0,1],[5,0]]"'
    )
    predict.set_defaults(run=Run("commands", "cmd_predict"))

    explain = command(
        "explain",
        "why each row got its prediction: every attribute's exact weight of evidence (nats) "
        "for the predicted class against the runner-up, ranked",
    )
    _model_and_source(explain)
    explain.add_argument(
        "--top", type=int, help="the prior and the K strongest attributes per row (default: all)"
    )
    explain.add_argument(
        "--keys", help="comma-separated columns identifying a row (default: its position)"
    )
    versus = explain.add_mutually_exclusive_group()
    versus.add_argument(
        "--against", help="weigh the predicted class against this class (default: runner-up)"
    )
    versus.add_argument(
        "--every-class",
        action="store_true",
        help="weigh every other class against the predicted one",
    )
    explain.add_argument(
        "--form",
        choices=["long", "wide"],
        default="long",
        help="long: a row per attribute; wide: reason_1..reason_K per row (needs --top)",
    )
    explain_target = explain.add_mutually_exclusive_group()
    explain_target.add_argument(
        "--to-view", help="create an explanation view of this name (rebuilt with the model)"
    )
    _listing_options(explain, explain_target)
    explain.set_defaults(run=Run("commands", "cmd_explain"))

    rank = command(
        "rank",
        "which attributes tell most about the class: MI (bits) of every column with --target, "
        "ranked (--pairs: CMI and MI of every attribute pair); or a stored model's ranking",
    )
    rank.add_argument(
        "source", nargs="?", help="table name or .parquet/.csv path (with --model: optional)"
    )
    rank.add_argument("--target", help="the class column")
    rank.add_argument(
        "--model", help="a stored model: its ranking from its counts, mean |evidence| over SOURCE"
    )
    rank.add_argument("--keys", help="comma-separated identifier columns, never ranked")
    _column_options(rank)
    rank.add_argument(
        "--bins",
        type=int,
        default=RANK_BINS,
        help=f"equal-frequency bins for numeric columns (default {RANK_BINS})",
    )
    rank.add_argument("--pairs", action="store_true", help="every attribute pair instead")
    _listing_options(rank, rank)
    rank.set_defaults(run=Run("commands", "cmd_rank"))

    update = command(
        "update",
        "add a batch of new rows to a stored model: its counts are added to the model's (no "
        "re-read of the training data), the result equal to a fit on all the rows",
    )
    _model_and_source(update, "of the new rows")
    update.add_argument(
        "--batch-id",
        required=True,
        help="the batch's id, recorded with the model; an id already applied is refused",
    )
    update.set_defaults(run=Run("commands", "cmd_update"))

    drift = command(
        "drift",
        "how far a table has moved from a model's training data: PSI, Jensen-Shannon distance "
        "and chi-square test per attribute, the class and the predictions (no training scan)",
    )
    _model_and_source(drift)
    drift.add_argument(
        "--bins",
        type=int,
        default=DRIFT_BINS,
        help="equal-frequency bins of a Naive Bayes Gaussian attribute's fitted normals "
        f"(default {DRIFT_BINS}; TAN keeps its own bins)",
    )
    drift_target = drift.add_mutually_exclusive_group()
    drift_target.add_argument(
        "--to-view", help="create a drift view of this name (rebuilt with the model)"
    )
    _listing_options(drift, drift_target)
    drift.set_defaults(run=Run("commands", "cmd_drift"))

    command("models", "list the models in the catalog").set_defaults(
        run=Run("commands", "cmd_models")
    )

    show = command("show", "print a model's settings, features and parameter tables")
    show.add_argument("model", help="name of a stored model (see 'models')")
    show.add_argument("--rows", type=int, default=20, help="rows per parameter table (default 20)")
    show.set_defaults(run=Run("commands", "cmd_show"))

    export = command(
        "export",
        "print self-contained SQL scoring a table with a model, for any warehouse: the "
        "model's parameters are written into it, so it needs only that table",
    )
    export.add_argument("model", help="name of a stored model (see 'models')")
    export.add_argument(
        "--source",
        help="the table the SQL reads, as the target warehouse names it (default: the table "
        "the model was trained from; required when that was a file)",
    )
    _export_options(export)
    sql = command("sql", "the same as export, with the table as an argument")
    sql.add_argument("model", help="name of a stored model (see 'models')")
    sql.add_argument("source", help="the table the SQL reads, as the target warehouse names it")
    _export_options(sql)

    evaluate = command(
        "evaluate",
        "cross-validate a model kind on a source, or evaluate a stored model (--model) on a "
        "hold-out source, and print the report",
    )
    evaluate.add_argument("source", help="table name or .parquet/.csv path")
    evaluate.add_argument("--target", help="the class column (cross-validation)")
    evaluate.add_argument("--model", help="a stored model to evaluate on SOURCE instead")
    _column_options(evaluate)
    _model_options(evaluate)
    evaluate.add_argument(
        "--folds", type=int, default=10, help="number of cross-validation folds (default 10)"
    )
    evaluate.add_argument(
        "--seed", type=int, default=0, help="seed of the fold assignment (default 0)"
    )
    evaluate.add_argument(
        "--keys",
        help="cross-validation: the one column identifying a row, whose MD5 picks its fold "
        "(default: row order); with --model: comma-separated columns to keep in the predictions",
    )
    evaluate.add_argument(
        "--loss",
        help='loss matrix as JSON, L[true][predicted], e.g. "[[0,1],[5,0]]": also print (and '
        "report) the mean loss of the predictions and of the minimum-expected-loss decisions",
    )
    evaluate.add_argument(
        "--report",
        metavar="FILE",
        help="also write a one-file HTML report (charts, every number and its SQL; with "
        "--model the model card too); needs warehouse-ml[report]. Its missing folders are "
        "created and the path is checked before the evaluation runs",
    )
    evaluate.add_argument("--key", dest="keys", help=argparse.SUPPRESS)  # the former spelling
    evaluate.add_argument("--no-stratify", action="store_true", help="plain k-fold")
    evaluate.add_argument(
        "--allow-high-cardinality",
        action="store_true",
        help="TAN: cross-validate with identifier-like categorical columns instead of refusing",
    )
    evaluate.add_argument(
        "--positive",
        help="positive class for ROC, precision/recall and lift (default: the last class)",
    )
    evaluate.add_argument(
        "--level", type=float, default=0.95, help="confidence level of the accuracy interval"
    )
    evaluate.add_argument(
        "--output-dir", help="write each table (predictions, confusion, ...) here"
    )
    evaluate.add_argument(
        "--format",
        choices=["csv", "parquet"],
        default="csv",
        help="file format of --output-dir tables (default csv)",
    )
    evaluate.add_argument(
        "--keep",
        action="store_true",
        help="keep the predictions in the database (schema wml; see 'evaluations'); by default "
        "nothing is kept",
    )
    evaluate.set_defaults(run=Run("evaluate", "cmd_evaluate"))

    vacuum = command(
        "vacuum", "remove what crashed or abandoned runs left in schema wml, and list it"
    )
    vacuum.set_defaults(run=Run("commands", "cmd_vacuum"))

    evaluations = command("evaluations", "list the kept evaluations (evaluate --keep)")
    evaluations.add_argument("--drop", metavar="ID", help="drop this evaluation's tables")
    evaluations.set_defaults(run=Run("commands", "cmd_evaluations"))

    drop = command("drop", "remove a model, its parameter tables and its views")
    drop.add_argument("model", help="name of the model to remove")
    drop.set_defaults(run=Run("commands", "cmd_drop"))

    demo = command(
        "demo", "generate demo data, train every model kind, score into views, summarise"
    )
    demo.add_argument("--rows", type=int, default=200_000, help="rows to generate (default 200000)")
    demo.set_defaults(run=Run("demo", "cmd_demo"))
    return parser


def _check_model_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Read ``--param`` into ``args.params`` and refuse (a usage error) a model option that
    does not apply: to the kind (a parameter it lacks, weights for a kind without a weighted
    form), or at all to ``evaluate --model``, whose stored model keeps its settings and
    weights. ``args.kind`` is then the kind, by default :data:`DEFAULT_KIND`."""
    given = [o for o in (*MODEL_OPTIONS, WEIGHT_OPTION) if getattr(args, o) is not None]
    if getattr(args, "model", None):
        stored = [f"--{o.replace('_', '-')}" for o in given]
        stored += [f"--{o}" for o in ("kind", "param") if getattr(args, o) is not None]
        if stored:
            parser.error(
                f"{args.command} --model: {stored[0]} does not apply; a stored model keeps "
                "the kind, settings and weights it was fitted with"
            )
    args.kind = args.kind or DEFAULT_KIND
    try:
        refused_options(args.kind, given)
        args.params = kind_params(args.kind, args.param or [])
    except ValueError as error:
        parser.error(f"{args.command} --kind {args.kind}: {error}")
    both = [o for o in MODEL_OPTIONS if getattr(args, o) is not None and o in args.params]
    if both:
        parser.error(
            f"{args.command}: --{both[0].replace('_', '-')} and --param {both[0]} "
            "both given; expected one"
        )


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The parsed command line. An option given the value ``--`` (``--target=--``, a column
    named ``--``) keeps it: argparse before Python 3.12 strips that ``--`` and leaves ``[]``,
    a value no option of this CLI can otherwise have."""
    parser = build_parser()
    args = parser.parse_args(argv)
    for name, value in vars(args).items():
        if isinstance(value, list) and not value:
            setattr(args, name, "--")
    if args.command == "evaluate" and not args.model and args.keys and "," in args.keys:
        parser.error(f"evaluate: cross-validation takes one key column; got --keys {args.keys}")
    if hasattr(args, "param"):
        _check_model_options(parser, args)
    writes = writing_option(args.command, vars(args))
    if args.read_only and writes is not None:
        parser.error(
            f"{' '.join(filter(None, [args.command, writes]))} writes to the database; "
            "--read-only is for the commands that only read it"
        )
    return args
