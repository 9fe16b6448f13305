"""The one-file report of a large predictions table: time and peak memory, against one scan of
the same table (the floor of any measure over it) in the same run.

Run: ``python bench/report.py [--rows 10000000]``.

Data: a DuckDB table of ``--rows`` binary predictions (key, truth, p_no, p_yes, prediction)
with continuous scores, so the ROC and recall-precision curves have millions of distinct
points, which the report thins in SQL. Printed: seconds of one scan (``SUM`` of a probability
column), of ``Evaluation.report``, their ratio, the report's size, and the peak memory of the
process, DuckDB held to ``--memory-limit`` (default 4GB).
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import duckdb

import warehouse_ml as wml
from warehouse_ml.engines.duckdb import DuckDBWarehouse
from warehouse_ml.sqlgen.templates import TableName


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument(
        "--memory-limit", default="4GB", help="DuckDB's memory_limit: larger sorts spill to disk"
    )
    args = parser.parse_args()
    con = duckdb.connect(config={"memory_limit": args.memory_limit})
    con.execute(
        f"""CREATE TABLE predictions AS
        SELECT i AS id, CASE WHEN random() < 0.3 THEN 'yes' ELSE 'no' END AS churned,
               random() AS u FROM range({args.rows}) t(i)"""
    )
    con.execute(
        """CREATE OR REPLACE TABLE predictions AS
        SELECT id, churned,
               1 - LEAST(1.0, u * 0.8 + CASE WHEN churned = 'yes' THEN 0.2 ELSE 0 END) AS p_no,
               LEAST(1.0, u * 0.8 + CASE WHEN churned = 'yes' THEN 0.2 ELSE 0 END) AS p_yes
        FROM predictions"""
    )
    con.execute(
        "ALTER TABLE predictions ADD COLUMN prediction VARCHAR DEFAULT NULL;"
        "UPDATE predictions SET prediction = CASE WHEN p_yes >= 0.5 THEN 'yes' ELSE 'no' END"
    )
    warehouse = DuckDBWarehouse(con)
    ev = wml.Evaluation(
        warehouse, TableName(("predictions",)), "churned", ("no", "yes"), "id", 1,
        probability_columns=("p_no", "p_yes"),
    )  # fmt: skip
    start = time.perf_counter()
    con.execute("SELECT SUM(p_yes) FROM predictions").fetchall()
    scan = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        page = ev.report(Path(folder) / "report.html", positive="yes")
        seconds = time.perf_counter() - start
        size = page.stat().st_size
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.rows:,} predictions, DuckDB memory_limit {args.memory_limit}")
    print(f"one scan {scan:.3f} s; report {seconds:.2f} s ({seconds / scan:.0f}x the scan)")
    print(f"report {size / 1e6:.2f} MB; peak memory {peak:.0f} MB")


if __name__ == "__main__":
    main()
