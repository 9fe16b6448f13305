"""``warehouse-ml demo``: generated data, every model kind trained and scored into views,
all owned by the library."""

from __future__ import annotations

import argparse
import json
import shlex
import time

import pyarrow as pa
import pyarrow.compute as pc

from warehouse_ml import synthetic
from warehouse_ml.cli.display import print_table
from warehouse_ml.engines import DuckDBWarehouse
from warehouse_ml.engines.sources import open_source, query
from warehouse_ml.errors import NameConflictError
from warehouse_ml.models import kinds
from warehouse_ml.models.capabilities import ScoresByStoredRows
from warehouse_ml.models.state import FittedState
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.store import catalog, ownership

DEMO_TABLES = ("customers", "new_customers")
TARGET = "churned"
"""The demo tables' class column: 'yes' or 'no'; the other columns are ``customer_id`` (the
key, 1, 2, ...) and eight text attributes ``attribute_0`` ... ``attribute_7``."""
SAMPLED = "SELECT * FROM customers WHERE customer_id % 100 = 0"
"""What a kind whose scoring reads every stored row (``ScoresByStoredRows``) is trained on:
every 100th customer, so that scoring new_customers stays a matter of seconds."""
FOLLOW_UP_QUERY = (
    "SELECT prediction, count(*) AS n FROM demo_naive_bayes_scores GROUP BY ALL ORDER BY ALL"
)
"""What the command the demo suggests last reads (:func:`follow_up`)."""


def _demo_names(con: DuckDBWarehouse) -> tuple[list[ownership.Claim], list[str]]:
    """Check, before anything runs, that the demo's tables and views may be (re)created: new
    names, or the demo's own from an earlier run; and that no model of a demo model's name
    exists that the demo did not make."""
    claims = [ownership.claim(con, TableName((name,)), "table") for name in DEMO_TABLES]
    models = [f"demo_{spec.kind}" for spec in kinds.specs()]
    known = {
        r["name"]: FittedState.noted(r["details"], r["name"]) for r in catalog.list_models(con)
    }
    for model in models:
        ownership.claim(con, TableName((f"{model}_scores",)), "view")
        if model in known and not known[model].extra.get("demo"):
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
        churned = pc.if_else(pc.equal(data.column("class"), "c0"), "no", "yes")
        data = pa.table(
            {
                "customer_id": pa.array(range(1, data.num_rows + 1)),
                **{f"attribute_{i}": data.column(i) for i in range(8)},
                TARGET: churned,
            }
        )
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
        width = max(len(spec.kind) for spec in kinds.specs())
        for model_name, spec in zip(models, kinds.specs(), strict=True):
            model = spec.load()()
            sampled = isinstance(model, ScoresByStoredRows)  # scoring reads every stored row
            model.fit(
                warehouse, query(SAMPLED) if sampled else "customers", TARGET,
                keys=["customer_id"], name=model_name, details={"demo": True},
            )  # fmt: skip
            view = model.create_view(
                warehouse, f"{model_name}_scores", "new_customers", keys=["customer_id", TARGET]
            )
            hits = warehouse.fetch(
                "select_view_accuracy",
                view=view,
                truth=templates.column(TARGET),
                prediction=templates.column("prediction"),
            ).to_pylist()[0]
            print(
                f"{spec.kind:{width}s} trained in the warehouse"
                f"{' on every 100th customer' if sampled else ''}; view {view}: accuracy on "
                f"new_customers {hits['accuracy']:.4f} ({hits['n']} rows)"
            )
        print("\nfirst rows of demo_naive_bayes_scores:")
        print_table(
            warehouse.fetch(
                "select_table",
                table=TableName(("demo_naive_bayes_scores",)),
                order_columns=[templates.column("customer_id", "t")],
            ).slice(0, 5)
        )
    print(
        f"\ndone in {time.perf_counter() - started:.1f} s. Query the views from Python (its "
        "duckdb module comes with warehouse-ml) or from any DuckDB client:"
    )
    print(f"  {follow_up(args.db)}")


def follow_up(db: str) -> str:
    """The shell command the demo suggests last: Python's duckdb module (a dependency of
    warehouse-ml, so the install provides it) reading a demo view of the database ``db``,
    quoted for a POSIX shell."""
    code = (
        f"import duckdb; print(duckdb.connect({json.dumps(db)}, read_only=True).sql("
        f"{json.dumps(FOLLOW_UP_QUERY)}))"
    )
    return f"python -c {shlex.quote(code)}"
