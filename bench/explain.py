"""Explanations against predictions: the cost of reading an explanation view, relative to the
prediction view of the same model, in one run.

Run: ``python bench/explain.py [--rows 1000000] [--attributes 20] [--repeat 2]``.

Data: ``synthetic.tan_data`` (string attributes, 3 classes) in an in-memory DuckDB table.
For Naive Bayes and TAN: ``SELECT * FROM view`` read into Arrow, for the prediction view
(keys: the id), the long explanation view with ``top=3`` (a prior row and three ranked
attributes per source row, so four times the rows) and the wide one (reason codes, one row per
source row); the best of ``--repeat`` runs of each. Printed: seconds, rows, each explanation's
time over the prediction's, and the peak memory.
"""

from __future__ import annotations

import argparse
import resource
import time

import duckdb

import warehouse_ml as wml
from warehouse_ml import synthetic


def timed_read(con: duckdb.DuckDBPyConnection, view: str, repeat: int) -> tuple[float, int]:
    """Best time of reading ``view`` into Arrow, and its rows."""
    best, rows = float("inf"), 0
    for _ in range(repeat):
        start = time.perf_counter()
        rows = con.sql(f'SELECT * FROM "{view}"').to_arrow_table().num_rows
        best = min(best, time.perf_counter() - start)
    return best, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--attributes", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    con = duckdb.connect()
    data = synthetic.tan_data(args.rows, args.attributes, n_classes=3, strings=True, seed=1)
    con.register("data", data)
    con.execute("CREATE TABLE t AS SELECT row_number() OVER () AS id, * FROM data")
    con.unregister("data")
    print(f"{args.rows:,} rows x {args.attributes} string attributes, 3 classes")
    print(f"{'model':6} {'view':12} {'seconds':>8} {'rows':>10} {'ratio':>6}")
    for kind in (wml.NaiveBayes, wml.TAN):
        model = kind().fit(con, "t", "class", keys=["id"], name=kind.kind)
        model.create_view(con, f"{kind.kind}_p", "t", keys=["id"])
        model.create_explanation_view(con, f"{kind.kind}_e", "t", keys=["id"], top=3)
        model.create_explanation_view(con, f"{kind.kind}_w", "t", keys=["id"], top=3, form="wide")
        predicted, n_predicted = timed_read(con, f"{kind.kind}_p", args.repeat)
        print(f"{kind.kind[:6]:6} {'prediction':12} {predicted:8.3f} {n_predicted:10,}")
        for view, label in ((f"{kind.kind}_e", "long top 3"), (f"{kind.kind}_w", "wide top 3")):
            explained, n_explained = timed_read(con, view, args.repeat)
            ratio = explained / predicted
            print(f"{kind.kind[:6]:6} {label:12} {explained:8.3f} {n_explained:10,} {ratio:5.2f}x")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
