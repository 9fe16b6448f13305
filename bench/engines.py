"""Naive Bayes fit and scoring on DuckDB, PostgreSQL and Spark, same data, side by side.

Usage: ``python bench/engines.py [--rows 1000000] [--engines duckdb,postgres,spark]``.

The data (seeded, ``warehouse_ml.synthetic``-style: 6 categorical string attributes, 2 numeric,
a binary target) is loaded once per engine as a durable table (not timed), then timed:

* ``fit``: ``NaiveBayes().fit(con, table, ...)`` (counts, parameter tables, catalog publish);
* ``score``: ``CREATE TABLE ... AS`` the scoring query over the whole table (no transfer to
  Python, so it measures the engine, not the driver).

Output: seconds per engine and the ratio to DuckDB in the same run (lower is faster). The
PostgreSQL server (a throw-away cluster) and the Spark session (``local[2]``) are started and
stopped by ``tests/engine_support.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import engine_support

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName

TABLE = "bench_engine_data"
SCORES = "bench_engine_scores"


def make_data(rows: int, seed: int = 0) -> pa.Table:
    """Seeded rows: id, a0..a5 (strings, 3-8 values, ~2% NULL), x0, x1 (doubles), y ('no'/'yes')."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows)
    columns: dict[str, Any] = {"id": np.arange(rows, dtype=np.int64)}
    for i in range(6):
        k = 3 + i
        codes = (y + rng.integers(0, k, rows)) % k
        values = np.array([f"v{j}" for j in range(k)], dtype=object)[codes]
        values[rng.random(rows) < 0.02] = None
        columns[f"a{i}"] = pa.array(values, pa.string())
    for i in range(2):
        columns[f"x{i}"] = rng.normal(y * (i + 1), 1.0)
    columns["y"] = pa.array(np.where(y == 1, "yes", "no"), pa.string())
    return pa.table(columns)


@contextlib.contextmanager
def open_engine(name: str) -> Iterator[tuple[Warehouse, Any]]:
    """A Warehouse on a fresh engine; the server or session is stopped on exit."""
    if name == "duckdb":
        con = duckdb.connect()
        yield connect(con), con
        con.close()
    elif name == "postgres":
        import psycopg

        with engine_support.postgres_server() as conninfo:
            con = psycopg.connect(conninfo, autocommit=True)
            yield connect(con), con
            con.close()
    elif name == "spark":
        with engine_support.spark_session() as session:
            yield connect(session), session
    else:
        raise SystemExit(f"unknown engine {name!r}: expected duckdb, postgres or spark")


def run(name: str, data: pa.Table) -> dict[str, float]:
    """Load (untimed), then time the NB fit and the scoring of every row, in seconds."""
    with open_engine(name) as (warehouse, _):
        table = TableName((TABLE,))
        started = time.perf_counter()
        registered = warehouse.register_arrow(data)
        warehouse.run("drop_table", table=table)
        warehouse.run_tree(
            templates.create_table_as(table, templates.build("select_all", source=registered))
        )
        warehouse.unregister(registered)
        load = time.perf_counter() - started

        started = time.perf_counter()
        model = wml.NaiveBayes().fit(warehouse, TABLE, "y", keys=["id"])
        fit = time.perf_counter() - started

        warehouse.run("drop_table", table=TableName((SCORES,)))
        started = time.perf_counter()
        model.create_table(warehouse, SCORES, TABLE, keys=["id"])
        score = time.perf_counter() - started
        return {"load": load, "fit": fit, "score": score}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows (default 1000000)")
    parser.add_argument("--engines", default="duckdb,postgres,spark", help="comma-separated")
    args = parser.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    if "duckdb" not in engines:
        engines.insert(0, "duckdb")
    data = make_data(args.rows)
    print(f"NB on {args.rows:,} rows x 8 attributes (6 categorical strings, 2 numeric), 2 classes")
    results = {}
    for name in engines:
        try:
            results[name] = run(name, data)
        except (ImportError, RuntimeError) as error:
            print(f"{name}: skipped ({error})")
    base = results["duckdb"]
    print(
        f"{'engine':10s} {'load s':>8s} {'fit s':>8s} {'x duckdb':>9s} {'score s':>8s} {'x duckdb':>9s}"
    )
    for name, r in results.items():
        print(
            f"{name:10s} {r['load']:8.2f} {r['fit']:8.2f} {r['fit'] / base['fit']:9.1f} "
            f"{r['score']:8.2f} {r['score'] / base['score']:9.1f}"
        )


if __name__ == "__main__":
    main()
