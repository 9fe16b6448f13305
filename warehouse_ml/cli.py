"""``warehouse-ml``: train, score and inspect classifiers in a DuckDB database from the shell.

Exit codes: 0 success; 1 a clear error about the input (message on stderr); 2 bad usage;
130 interrupted (Ctrl-C): the statement running is abandoned, a fit drops its new tables and the
catalog is left as it was.

Progress: with ``--progress`` (default: when stderr is a terminal) each command reports the
statement it is running on stderr; stdout carries only the command's output.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

import warehouse_ml as wml
from warehouse_ml import synthetic
from warehouse_ml.api import MODEL_KINDS
from warehouse_ml.engines import DuckDBWarehouse
from warehouse_ml.engines.sources import open_source
from warehouse_ml.errors import NameConflictError, ParameterError, WarehouseMLError
from warehouse_ml.evaluation import crossval
from warehouse_ml.models.base import Classifier
from warehouse_ml.progress import Progress
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.store import catalog, ownership

DEFAULT_DB = os.environ.get("WML_DB", "warehouse.duckdb")
KIND_NAMES = {"nb": "naive_bayes", "naive_bayes": "naive_bayes", "tan": "tan"}
INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, the shell's convention)."""


def _names(text: str | None) -> list[str] | None:
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]


def _model(kind: str, args: argparse.Namespace) -> Classifier:
    cls = MODEL_KINDS.get(KIND_NAMES.get(kind, kind))
    if cls is None:
        raise ParameterError(f"unknown model kind {kind!r}; expected one of {sorted(KIND_NAMES)}")
    options: dict[str, Any] = {"alpha": args.alpha, "prior_alpha": args.prior_alpha}
    if getattr(args, "bins", None) is not None:
        options["bins"] = args.bins
    return cls(**options)


def _write(table: pa.Table, path: str) -> None:
    suffix = Path(path).suffix.lower()
    if suffix in (".parquet", ".pq"):
        pq.write_table(table, path)
    elif suffix == ".csv":
        pacsv.write_csv(table, path)
    else:
        raise ParameterError(f"output file {path!r}: expected a .parquet or .csv name")


def _print_table(table: pa.Table, limit: int = 20) -> None:
    """A plain fixed-width rendering of the first rows of an Arrow table."""
    rows = table.slice(0, limit).to_pylist()
    columns = table.column_names
    cells = [[_cell(r[c]) for c in columns] for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)))
    for row in cells:
        print("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)))
    if table.num_rows > limit:
        print(f"... {table.num_rows - limit} more rows")


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return "NULL" if value is None else str(value)


# -- progress ---------------------------------------------------------------------------------
class ProgressDisplay:
    """Shows the statement a command is running, on a text stream (stderr).

    On a terminal (``live``) one line is redrawn in place and refreshed every ``refresh``
    seconds, so the elapsed time keeps counting while a long statement runs; otherwise one line
    is written per statement. Call :meth:`close` at the end to clear the live line.
    """

    def __init__(self, stream: Any, live: bool, refresh: float = 0.5) -> None:
        self.stream = stream
        self.live = live
        self.refresh = refresh
        self.current: tuple[Progress, float] | None = None
        self.lock = threading.Lock()
        self.stopped = threading.Event()
        self.ticker = threading.Thread(target=self._tick, daemon=True) if live else None
        if self.ticker is not None:
            self.ticker.start()

    def __call__(self, progress: Progress) -> None:
        with self.lock:
            self.current = (progress, time.monotonic())
            self._draw()

    def _text(self) -> str:
        progress, received = self.current  # type: ignore[misc]
        elapsed = progress.elapsed + (time.monotonic() - received if self.live else 0.0)
        return (
            f"warehouse-ml {progress.operation}: {elapsed:.1f} s, "
            f"statement {progress.statement}: {progress.phase}"
        )

    def _draw(self) -> None:
        if self.current is None:
            return
        if self.live:
            width = max(20, shutil.get_terminal_size().columns - 1)
            self.stream.write("\r\033[K" + self._text()[:width])
        else:
            self.stream.write(self._text() + "\n")
        self.stream.flush()

    def _tick(self) -> None:
        while not self.stopped.wait(self.refresh):
            with self.lock:
                self._draw()

    def close(self) -> None:
        """Stop refreshing and clear the live line."""
        self.stopped.set()
        if self.ticker is not None:
            self.ticker.join()
        with self.lock:
            if self.live and self.current is not None:
                self.stream.write("\r\033[K")
                self.stream.flush()
            self.current = None


@contextlib.contextmanager
def _session(args: argparse.Namespace) -> Iterator[DuckDBWarehouse]:
    """The command's database, with its statements reported as operation ``args.command`` to a
    :class:`ProgressDisplay` on stderr when ``--progress`` is on (default: stderr is a TTY)."""
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    display = ProgressDisplay(sys.stderr, live=sys.stderr.isatty()) if show else None
    connection = duckdb.connect(args.db)
    con = DuckDBWarehouse(connection)
    try:
        with con.operation(args.command, display):
            yield con
    finally:
        if display is not None:
            display.close()
        connection.close()


# -- commands ---------------------------------------------------------------------------------
def cmd_train(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    model = _model(args.kind, args).fit(
        con,
        args.source,
        args.target,
        features=_names(args.features),
        categorical=_names(args.categorical),
        numeric=_names(args.numeric),
        keys=_names(args.keys),
        name=args.name,
        allow_high_cardinality=args.allow_high_cardinality,
    )
    print(
        f"trained {model.kind} model {model.name_!r} on {model.n_rows_} rows "
        f"({model.n_null_target_} with NULL target skipped): classes {model.classes_}, "
        f"features {model.feature_names_in_}"
    )


def _decision(args: argparse.Namespace) -> dict[str, Any]:
    loss = json.loads(args.loss) if args.loss else None
    return {"threshold": args.threshold, "positive": args.positive, "loss": loss}


def cmd_predict(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    model = wml.load(con, args.model)
    keys = _names(args.keys)
    if args.to_view:
        name = model.create_view(con, args.to_view, args.source, keys=keys, **_decision(args))
        print(f"created view {name} (columns: keys, p_<class> per class, prediction)")
    elif args.to_table:
        name = model.create_table(con, args.to_table, args.source, keys=keys, **_decision(args))
        print(f"created table {name}")
    else:
        scores = model.score(con, args.source, keys=keys, **_decision(args))
        if args.output:
            _write(scores, args.output)
            print(f"wrote {scores.num_rows} rows to {args.output}")
        else:
            _print_table(scores)


def cmd_models(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    models = wml.list_models(con)
    if models.num_rows == 0:
        print(f"no models in {args.db}")
        return
    _print_table(models.select(["name", "kind", "target", "n_rows", "classes", "created_at"]))


def cmd_show(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    model = wml.load(con, args.model)
    record = model.record
    print(
        f"model {record.name!r}: {record.kind}, target {record.target!r}, classes {record.classes}"
    )
    print(f"trained on {record.source} ({record.n_rows} rows) at {record.created_at} UTC")
    print(f"smoothing: {json.dumps(record.smoothing, sort_keys=True)}")
    for feature in model.features_:
        print(f"  {feature.name}: {feature.kind} ({feature.sql_type})")
    if hasattr(model, "tree_text"):
        print(model.tree_text())
    for part, table in model.parameters(con).items():
        print(f"\n{part} ({table.num_rows} rows)")
        _print_table(table, args.rows)


def cmd_sql(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    model = wml.load(con, args.model)
    print(model.sql(con, args.source, keys=_names(args.keys), dialect=args.dialect))


def cmd_drop(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    wml.drop(con, args.model)
    print(f"dropped model {args.model!r}")


def _section(title: str) -> None:
    print(f"\n== {title}")


def cmd_evaluate(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """Cross-validate a model kind on a source (or evaluate a stored model on a hold-out source)
    and print the report; optionally write every table."""
    if args.model:
        model = wml.load(con, args.model)
        evaluation = crossval.evaluate(
            con, model, args.source, keys=_names(args.keys) or (), keep=args.keep
        )
        how = f"model {args.model!r} on hold-out {args.source}"
    else:
        if not args.target:
            raise ParameterError("evaluate needs --target (or --model to evaluate a stored model)")
        key = args.key
        evaluation = crossval.cross_validate(
            con, args.source, args.target, _model(args.kind, args), folds=args.folds,
            stratified=not args.no_stratify, seed=args.seed, key=key, keep=args.keep,
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
    _print_table(tables["class_measures"])
    _print_table(tables["averaged_measures"])
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
    _print_table(tables["lift"])
    _section("scoring rules")
    log_score, brier = evaluation.log_score(), evaluation.brier_score()
    print(f"log score: sum {log_score.total:.4f}, mean {log_score.mean:.4f} (natural log)")
    print(f"Brier score: mean {brier.mean:.4f}")
    if args.output_dir:
        folder = Path(args.output_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for name, table in tables.items():
            _write(table, str(folder / f"{name}.{args.format}"))
        print(f"\nwrote {', '.join(tables)} as .{args.format} to {folder}")


DEMO_TABLES = ("customers", "new_customers")


def _demo_names(con: DuckDBWarehouse) -> tuple[list[ownership.Claim], list[str]]:
    """Check, before anything runs, that the demo's tables and views may be (re)created: new
    names, or the demo's own from an earlier run; and that no model of a demo model's name
    exists that the demo did not make."""
    claims = [ownership.claim(con, TableName((name,)), "table") for name in DEMO_TABLES]
    models = [f"demo_{kind}" for kind in sorted(MODEL_KINDS)]
    known = {row["name"]: row for row in catalog.list_models(con)}
    for model in models:
        ownership.claim(con, TableName((f"{model}_scores",)), "view")
        if model in known and not known[model]["details"].get("demo"):
            raise NameConflictError(
                f"a model named {model!r} exists and was not made by the demo; it is left "
                "alone: run the demo on another database (--db)"
            )
    catalog.ensure(con)
    return claims, models


def cmd_demo(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """Generate demo data into a DuckDB file, train, score into views, print a summary. The
    tables, views and models it makes are warehouse-ml's own (a re-run replaces them); it
    refuses to run where a user's object has one of their names."""
    started = time.perf_counter()
    with con.session() as warehouse:
        claims, models = _demo_names(warehouse)
        data = synthetic.tan_data(
            args.rows, 8, n_classes=2, tree="chain", concentration=3.0, strings=True, seed=11
        )
        data = data.rename_columns([*(f"attribute_{i}" for i in range(8)), "label"])
        data = data.append_column("customer_id", pa.array(range(1, data.num_rows + 1)))
        n_train = int(data.num_rows * 0.8)
        parts = (data.slice(0, n_train), data.slice(n_train))
        for claimed, part in zip(claims, parts, strict=True):
            with open_source(warehouse, part) as arrow:
                ownership.create(
                    warehouse, claimed, templates.build("select_all", source=arrow.relation),
                    owner_kind="demo", owner="demo", role="data", created_by="demo",
                    lifetime=ownership.KEPT,
                )  # fmt: skip
        print(
            f"wrote tables customers ({n_train} rows) and new_customers "
            f"({data.num_rows - n_train} rows) to {args.db}"
        )
        for model_name, kind in zip(models, sorted(MODEL_KINDS), strict=True):
            model = MODEL_KINDS[kind]().fit(
                warehouse, "customers", "label", keys=["customer_id"], name=model_name,
                details={"demo": True},
            )  # fmt: skip
            view = model.create_view(
                warehouse, f"{model_name}_scores", "new_customers", keys=["customer_id", "label"]
            )
            hits = warehouse.fetch(
                "select_view_accuracy",
                view=view,
                truth=templates.column("label"),
                prediction=templates.column("prediction"),
            ).to_pylist()[0]
            print(
                f"{kind:12s} trained in the warehouse; view {view}: accuracy on new_customers "
                f"{hits['accuracy']:.4f} ({hits['n']} rows)"
            )
        print("\nfirst rows of demo_naive_bayes_scores:")
        _print_table(
            warehouse.fetch(
                "select_table",
                table=TableName(("demo_naive_bayes_scores",)),
                order_columns=[templates.column("customer_id", "t")],
            ).slice(0, 5)
        )
    print(f"\ndone in {time.perf_counter() - started:.1f} s. Query it from any DuckDB client:")
    print(
        f"  duckdb {args.db} "
        '"SELECT prediction, count(*) FROM demo_naive_bayes_scores GROUP BY ALL"'
    )


def cmd_vacuum(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """Remove what crashed or abandoned runs left in the database, and list it."""
    removed = wml.vacuum(con)
    if removed.num_rows == 0:
        print("nothing to remove: every object of warehouse-ml here is in use")
        return
    print(f"removed {removed.num_rows} objects left by crashed or abandoned runs:")
    _print_table(removed.select(["object_name", "object_kind", "owner_kind", "owner", "role"]))


def cmd_evaluations(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """List the kept evaluations, or drop one."""
    if args.drop:
        wml.drop_evaluation(con, args.drop)
        print(f"dropped evaluation {args.drop!r}")
        return
    evaluations = wml.list_evaluations(con)
    if evaluations.num_rows == 0:
        print(f"no kept evaluations in {args.db}")
        return
    _print_table(evaluations)


# -- argument parsing -----------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warehouse-ml",
        description="Naive Bayes and TAN classifiers trained, scored and inspected inside a "
        "DuckDB database. Sources are table names (schema.table) or .parquet/.csv paths.",
    )
    parser.add_argument("--version", action="version", version=f"warehouse-ml {wml.__version__}")
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
        return sub

    train = command("train", "learn a model from a table or file and store it in the catalog")
    train.add_argument("source", help="table name or .parquet/.csv path")
    train.add_argument("--target", required=True, help="the class column")
    train.add_argument("--kind", default="nb", help="nb (Naive Bayes, default) or tan")
    train.add_argument(
        "--name", help="model name (default <kind>_<target>; replaces a model of that name)"
    )
    train.add_argument(
        "--features", help="comma-separated feature columns (default: all but target and keys)"
    )
    train.add_argument("--keys", help="comma-separated identifier columns, never features")
    train.add_argument("--categorical", help="columns to treat as categorical")
    train.add_argument("--numeric", help="columns to treat as numeric")
    train.add_argument(
        "--alpha", type=float, default=1.0, help="additive smoothing of attributes (default 1)"
    )
    train.add_argument(
        "--prior-alpha",
        type=float,
        default=0.0,
        help="additive smoothing of the class prior (default 0)",
    )
    train.add_argument("--bins", type=int, help="TAN: equal-frequency bins for numeric columns")
    train.add_argument(
        "--allow-high-cardinality",
        action="store_true",
        help="learn identifier-like categorical columns instead of refusing them",
    )
    train.set_defaults(run=cmd_train)

    predict = command("predict", "score a table or file with a stored model")
    predict.add_argument("model")
    predict.add_argument("source", help="table name or .parquet/.csv path")
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
    predict.set_defaults(run=cmd_predict)

    command("models", "list the models in the catalog").set_defaults(run=cmd_models)

    show = command("show", "print a model's settings, features and parameter tables")
    show.add_argument("model")
    show.add_argument("--rows", type=int, default=20, help="rows per parameter table (default 20)")
    show.set_defaults(run=cmd_show)

    sql = command("sql", "print the SQL that scores a source with a model")
    sql.add_argument("model")
    sql.add_argument("source")
    sql.add_argument("--keys", help="comma-separated columns to carry along (default: all)")
    sql.add_argument(
        "--dialect", help="any sqlglot dialect (default duckdb): postgres, spark, snowflake ..."
    )
    sql.set_defaults(run=cmd_sql)

    evaluate = command(
        "evaluate",
        "cross-validate a model kind on a source, or evaluate a stored model (--model) on a "
        "hold-out source, and print the report",
    )
    evaluate.add_argument("source", help="table name or .parquet/.csv path")
    evaluate.add_argument("--target", help="the class column (cross-validation)")
    evaluate.add_argument("--model", help="a stored model to evaluate on SOURCE instead")
    evaluate.add_argument("--kind", default="nb", help="nb (default) or tan")
    evaluate.add_argument("--alpha", type=float, default=1.0)
    evaluate.add_argument("--prior-alpha", type=float, default=0.0)
    evaluate.add_argument("--bins", type=int, help="TAN: equal-frequency bins for numeric columns")
    evaluate.add_argument("--folds", type=int, default=10)
    evaluate.add_argument("--seed", type=int, default=0)
    evaluate.add_argument("--key", help="unique integer or string column (default: row order)")
    evaluate.add_argument("--keys", help="with --model: columns to keep in the predictions")
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
    evaluate.add_argument("--format", choices=["csv", "parquet"], default="csv")
    evaluate.add_argument(
        "--keep",
        action="store_true",
        help="keep the predictions in the database (schema wml; see 'evaluations'); by default "
        "nothing is kept",
    )
    evaluate.set_defaults(run=cmd_evaluate)

    vacuum = command(
        "vacuum", "remove what crashed or abandoned runs left in schema wml, and list it"
    )
    vacuum.set_defaults(run=cmd_vacuum)

    evaluations = command("evaluations", "list the kept evaluations (evaluate --keep)")
    evaluations.add_argument("--drop", metavar="ID", help="drop this evaluation's tables")
    evaluations.set_defaults(run=cmd_evaluations)

    drop = command("drop", "remove a model, its parameter tables and its views")
    drop.add_argument("model")
    drop.set_defaults(run=cmd_drop)

    demo = command(
        "demo", "generate demo data, train every model kind, score into views, summarise"
    )
    demo.add_argument("--rows", type=int, default=200_000, help="rows to generate (default 200000)")
    demo.set_defaults(run=cmd_demo)
    return parser


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The parsed command line. An option given the value ``--`` (``--target=--``, a column
    named ``--``) keeps it: argparse before Python 3.12 strips that ``--`` and leaves ``[]``,
    a value no option of this CLI can otherwise have."""
    args = build_parser().parse_args(argv)
    for name, value in vars(args).items():
        if isinstance(value, list) and not value:
            setattr(args, name, "--")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``warehouse-ml`` console script."""
    args = parse_args(argv)
    try:
        with _session(args) as con:
            args.run(args, con)
    except KeyboardInterrupt:
        print(
            f"warehouse-ml {args.command}: interrupted; the model catalog is as it was before "
            "this command",
            file=sys.stderr,
        )
        return INTERRUPTED
    except (WarehouseMLError, duckdb.Error, json.JSONDecodeError) as error:
        print(f"warehouse-ml {args.command}: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
