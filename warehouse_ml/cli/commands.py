"""The commands that train, score, inspect and remove models, and list or clean up what
the library keeps (``warehouse-ml train|predict|models|show|sql|drop|vacuum|evaluations``)."""

from __future__ import annotations

import argparse
import json
from typing import Any

import pyarrow as pa

import warehouse_ml as wml
from warehouse_ml.cli.choices import MODEL_OPTIONS
from warehouse_ml.cli.display import print_table, write_table
from warehouse_ml.engines import DuckDBWarehouse
from warehouse_ml.errors import ParameterError
from warehouse_ml.models import kinds
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.inspection.sections import TablePart, TextPart


def write_or_print(table: pa.Table, output: str | None, rows: int = 20) -> None:
    """Write ``table`` to the file ``output`` (saying so), or print its first ``rows``."""
    if output:
        write_table(table, output)
        print(f"wrote {table.num_rows} rows to {output}")
    else:
        print_table(table, rows)


def split_names(text: str | None) -> list[str] | None:
    """Column names from a comma-separated option value."""
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]


def feature_choice(text: str | None) -> list[str] | str | None:
    """The features option's value: comma-separated names, or ``top:k`` as it is."""
    if text is not None and text.strip().startswith("top:"):
        return text.strip()
    return split_names(text)


def model_from(kind: str, args: argparse.Namespace) -> Classifier:
    """A model of ``kind`` with the smoothing options and ``--param`` values given on the
    command line (the parser refused those that do not apply to the kind); the others keep
    the model's defaults (the same as in Python)."""
    options = {
        name: getattr(args, name) for name in MODEL_OPTIONS if getattr(args, name) is not None
    }
    return kinds.named(kind).load()(**options, **args.params)


def cmd_train(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    model = model_from(args.kind, args).fit(
        con,
        args.source,
        args.target,
        features=split_names(args.features),
        categorical=split_names(args.categorical),
        numeric=split_names(args.numeric),
        keys=split_names(args.keys),
        name=args.name,
        allow_high_cardinality=args.allow_high_cardinality,
        sample_weight=args.sample_weight,
        replace=args.replace,
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
    keys = split_names(args.keys)
    if args.to_view:
        name = model.create_view(con, args.to_view, args.source, keys=keys, **_decision(args))
        print(f"created view {name} (columns: keys, p_<class> per class, prediction)")
    elif args.to_table:
        name = model.create_table(con, args.to_table, args.source, keys=keys, **_decision(args))
        print(f"created table {name}")
    else:
        scores = model.score_rows(con, args.source, keys=keys, **_decision(args))
        write_or_print(scores, args.output)


def _class_named(model: Classifier, label: str | None) -> Any:
    """The class of ``model`` whose text is ``label`` (None: None); a usage error otherwise."""
    if label is None:
        return None
    for c in model.classes_:
        if str(c) == label:
            return c
    raise wml.ParameterError(
        f"--against {label!r} is not a class of model {model.name_!r}; expected one of "
        f"{[str(c) for c in model.classes_]}"
    )


def cmd_explain(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    model = wml.load(con, args.model)
    against = wml.EVERY_CLASS if args.every_class else _class_named(model, args.against)
    options = {"keys": split_names(args.keys), "top": args.top, "against": against}
    if args.to_view:
        name = model.create_explanation_view(
            con, args.to_view, args.source, form=args.form, **options
        )
        print(f"created view {name} (one row per {'row' if args.form == 'wide' else 'reason'})")
        return
    write_or_print(
        model.explain(con, args.source, form=args.form, **options), args.output, args.rows
    )


def cmd_update(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """Apply a batch to a stored model and say what it now holds."""
    model = wml.load(con, args.model).update(con, args.source, batch_id=args.batch_id)
    applied = model.batches_[-1]
    outside = ", ".join(f"{a}: {n}" for a, n in applied["above_bins"].items() if n)
    print(
        f"updated {model.name_!r} with batch {applied['batch_id']!r}: {applied['n_rows']} rows "
        f"added ({applied['n_null_target']} without a class), {model.n_rows_} rows in "
        f"{len(model.batches_)} batch(es) since its fit"
        + (f"; values above the top bin: {outside}" if outside else "")
    )


def cmd_drift(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """Print (or write, or create a view of) a stored model's drift over SOURCE."""
    model = wml.load(con, args.model)
    if args.to_view:
        name = model.create_drift_view(con, args.to_view, args.source, bins=args.bins)
        print(f"created view {name} (one row per attribute, the class and the predictions)")
        return
    write_or_print(model.drift(con, args.source, bins=args.bins), args.output, args.rows)


def cmd_rank(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """Rank a source's attributes by MI with --target (or every pair with --pairs), or print a
    stored model's ranking (--model, with the mean |evidence| over SOURCE when given)."""
    if args.model:
        ranked = wml.load(con, args.model).attribute_ranking(con, args.source)
    else:
        if args.source is None or args.target is None:
            raise ParameterError("rank needs SOURCE and --target (or --model NAME)")
        measure = wml.pair_information if args.pairs else wml.rank_attributes
        ranked = measure(
            con, args.source, args.target, split_names(args.features),
            keys=split_names(args.keys), categorical=split_names(args.categorical),
            numeric=split_names(args.numeric), bins=args.bins,
        )  # fmt: skip
    write_or_print(ranked, args.output, args.rows)


def cmd_models(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    models = wml.list_models(con)
    if models.num_rows == 0:
        print(f"no models in {args.db}")
        return
    print_table(models.select(["name", "kind", "target", "n_rows", "classes", "created_at"]))


def cmd_show(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    model = wml.load(con, args.model)
    record = model.record
    print(
        f"model {record.name!r}: {record.kind}, target {record.target!r}, classes {record.classes}"
    )
    print(f"trained on {record.source} ({record.n_rows} rows) at {record.created_at} UTC")
    print(f"settings: {', '.join(f'{k}={v!r}' for k, v in model.get_params().items())}")
    for feature in model.features_:
        print(f"  {feature.name}: {feature.kind} ({feature.sql_type})")
    section = model.model_section(con)
    for part in section.parts:  # a report's section of the model, in text (no pictures)
        if isinstance(part, TextPart):
            print(f"\n{part.title}\n{part.text}")
        elif isinstance(part, TablePart):
            print(f"\n{part.title} ({part.table.num_rows} rows)")
            print_table(part.table, args.rows)
            if part.note:
                print(part.note)


def cmd_sql(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    model = wml.load(con, args.model)
    print(model.sql(con, args.source, keys=split_names(args.keys), dialect=args.dialect))


def cmd_drop(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    wml.drop(con, args.model)
    print(f"dropped model {args.model!r}")


def cmd_vacuum(args: argparse.Namespace, con: DuckDBWarehouse) -> None:
    """Remove what crashed or abandoned runs left in the database, and list it."""
    removed = wml.vacuum(con)
    if removed.num_rows == 0:
        print("nothing to remove: every object of warehouse-ml here is in use")
        return
    print(f"removed {removed.num_rows} objects left by crashed or abandoned runs:")
    print_table(removed.select(["object_name", "object_kind", "owner_kind", "owner", "role"]))


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
    print_table(evaluations)
