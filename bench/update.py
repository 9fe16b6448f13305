"""Incremental update against a fit of the batch alone: the cost of adding a 1M-row batch to a
model fitted on 10M rows, relative to fitting a model on the 1M rows only, in one run.

Run: ``python bench/update.py [--rows 10000000] [--batch 1000000] [--attributes 12]``.

Data: ``synthetic.tan_data`` (string attributes, 3 classes) plus two numeric columns (normal,
class-shifted), the model's rows and the batch in two in-memory DuckDB tables. For Naive Bayes
and TAN: fit on the model's rows (not timed), then the best of ``--repeat`` runs of
``update(batch)`` (each run applies the batch under a new id to the model the previous run
left: the stored counts it adds to do not grow with the rows) and of ``fit(batch)``; and the one-scan floor: one GROUP BY class over every column of the
batch. Printed: seconds, update / fit of the batch (target at most 1.5x), update / floor, and
the peak memory. The update reads the batch and the model's stored counts, never the 10M rows.
"""

from __future__ import annotations

import argparse
import resource
import time

import duckdb
import numpy as np
import pyarrow as pa
from timing import best_of

import warehouse_ml as wml
from warehouse_ml import synthetic


def table(rows: int, attributes: int, seed: int) -> pa.Table:
    """String attributes a0.. and two numeric ones (x0, x1) shifted by class."""
    data = synthetic.tan_data(rows, attributes, n_classes=3, strings=True, seed=1, chunk=rows)
    rng = np.random.default_rng(seed)
    shift = np.array([int(c[1:]) for c in data["class"].to_pylist()], dtype=float)
    for i in range(2):
        data = data.append_column(f"x{i}", pa.array(rng.normal(shift * (i + 1), 1.0, rows)))
    return data


def load(con: duckdb.DuckDBPyConnection, name: str, rows: int, attributes: int, seed: int) -> None:
    for start in range(0, rows, 1_000_000):
        part = table(min(1_000_000, rows - start), attributes, seed + start)
        con.register("part", part)
        verb = "CREATE TABLE " + name + " AS" if start == 0 else "INSERT INTO " + name
        con.execute(f"{verb} SELECT * FROM part")
        con.unregister("part")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--batch", type=int, default=1_000_000)
    parser.add_argument("--attributes", type=int, default=12)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    con = duckdb.connect()
    load(con, "history", args.rows, args.attributes, seed=1)
    load(con, "batch", args.batch, args.attributes, seed=10**9)
    print(
        f"model fitted on {args.rows:,} rows, batch of {args.batch:,} rows; "
        f"{args.attributes} string + 2 numeric attributes, 3 classes"
    )
    columns = ", ".join(
        [*(f"COUNT(DISTINCT a{i})" for i in range(args.attributes)), "SUM(x0)", "SUM(x1)"]
    )
    floor = best_of(
        args.repeat, lambda: con.execute(f"SELECT class, {columns} FROM batch GROUP BY class")
    )
    print(f"one-scan floor (GROUP BY class over the batch): {floor:.3f} s")
    print(
        f"{'model':12} {'fit all':>8} {'update':>8} {'fit batch':>9} {'upd/fit':>8} {'upd/floor':>9}"
    )
    for kind in (wml.NaiveBayes, wml.TAN):
        start = time.perf_counter()
        kind().fit(con, "history", "class", name=f"{kind.kind}_base")
        fitted = time.perf_counter() - start
        base = wml.load(con, f"{kind.kind}_base")
        counter = iter(range(args.repeat))

        def update(base=base, counter=counter) -> None:
            base.update(con, "batch", batch_id=f"batch-{next(counter)}")

        updated = best_of(args.repeat, update)
        alone = best_of(
            args.repeat, lambda kind=kind: kind().fit(con, "batch", "class", name="alone")
        )
        print(
            f"{kind.kind:12} {fitted:8.2f} {updated:8.3f} {alone:9.3f} {updated / alone:7.2f}x "
            f"{updated / floor:8.1f}x"
        )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
