"""TAN learning speed and memory against the one-scan floor and pgmpy (a script, not a test).

    python bench/tan.py            # d = 20 and d = 50 at N = 1M (a few minutes on 2 cores)
    python bench/tan.py --full     # also d = 20 at N = 10M
    python bench/tan.py --rows 200000 --pgmpy-budget 30

For each (N, d) it prints, on a DuckDB table of integer codes sampled from a chain TAN:

* floor: ``SELECT count(*), sum(hash(a0)), ... FROM t`` (reads every value once), and the
  cheaper ``sum(a_i)`` floor of docs/ARCHITECTURE.md ("Counting in blocks");
* pair counts + CMI: the one pair-count statement and the information query (pairs.py);
* spanning tree: the Python step on the d x d CMI matrix;
* TAN fit: the whole ``warehouse_ml.TAN().fit`` (classes, NB tables, pair counts, CMI, tree, CPTs,
  catalog);
* pgmpy: ``TreeSearch(df, root_node="a0").estimate(estimator_type="tan", class_node="c")``
  (structure only) in a subprocess, killed after ``--pgmpy-budget`` seconds ("> budget");
* scoring: rows/s of a prediction view aggregated in SQL;
* peak memory: the process's maximum resident set (DuckDB included), and pgmpy's.

Ratios are against the hash floor measured in the same run.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, alias, column
from warehouse_ml.stats import pairs, spanning_tree

CARDINALITY = 3

PGMPY_SCRIPT = """
import resource, sys, time, warnings
warnings.filterwarnings("ignore")
import pandas as pd
from pgmpy.estimators import TreeSearch
frame = pd.read_parquet(sys.argv[1])
start = time.perf_counter()
dag = TreeSearch(frame, root_node="a0").estimate(
    estimator_type="tan", class_node="c", show_progress=False
)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
edges = sorted(tuple(sorted(e)) for e in dag.edges() if "c" not in e)
print(seconds, peak, edges)
"""


def sample(n: int, d: int, seed: int = 0) -> pa.Table:
    """A chain TAN: a0 depends on the class, a_i on the class and a_{i-1}; int32 codes 0..2."""
    rng = np.random.default_rng(seed)
    c = (rng.random(n) < 0.4).astype(np.int32)
    columns = {}
    previous = np.zeros(n, dtype=np.int32)
    for i in range(d):
        noise = rng.integers(0, CARDINALITY, n, dtype=np.int32)
        keep = rng.random(n) < 0.6
        value = np.where(keep, (previous + c + i) % CARDINALITY, noise).astype(np.int32)
        columns[f"a{i}"] = value
        previous = value
    columns["c"] = c
    return pa.table(columns)


def timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def best_of(k: int, action) -> float:
    return min(timed(action) for _ in range(k))


def floor_queries(names: list[str]) -> tuple[exp.Query, exp.Query]:
    table = TableName(("t",)).to_table()
    hashed = exp.select(alias(exp.Count(this=exp.Star()), "n")).from_(table)
    summed = exp.select(alias(exp.Count(this=exp.Star()), "n")).from_(table.copy())
    for i, name in enumerate(names):
        hashed = hashed.select(
            alias(exp.Sum(this=exp.Anonymous(this="hash", expressions=[column(name)])), f"h{i}")
        )
        summed = summed.select(alias(exp.Sum(this=column(name)), f"s{i}"))
    return hashed, summed


def run_pgmpy(data: pa.Table, budget: float) -> str:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.parquet"
        pq.write_table(data, path)
        try:
            done = subprocess.run(
                [sys.executable, "-c", PGMPY_SCRIPT, str(path)],
                capture_output=True,
                text=True,
                timeout=budget,
            )
        except subprocess.TimeoutExpired:
            return None, f"> budget ({budget:.0f} s)"
    if done.returncode != 0:
        return None, "failed: " + done.stderr.strip().splitlines()[-1]
    seconds, peak, edges = done.stdout.split(" ", 2)
    return float(
        seconds
    ), f"{float(seconds):.2f} s, peak {float(peak):.0f} MB, edges {edges.strip()}"


def bench(n: int, d: int, pgmpy_budget: float) -> None:
    print(f"\n== N = {n:,} rows, d = {d} attributes (int codes, cardinality {CARDINALITY}) ==")
    data = sample(n, d)
    con = duckdb.connect()
    con.register("incoming", data)
    con.execute("CREATE TABLE t AS SELECT * FROM incoming")
    con.unregister("incoming")
    warehouse = wml.connect(con)
    names = [f"a{i}" for i in range(d)]

    hashed, summed = floor_queries(names)
    floor = best_of(3, lambda: warehouse.fetch_tree(hashed))
    sum_floor = best_of(3, lambda: warehouse.fetch_tree(summed))
    print(f"floor sum(hash(a_i))       {floor:8.3f} s")
    print(f"floor sum(a_i)             {sum_floor:8.3f} s")

    source = TableName(("t",)).to_table()
    blocks = pairs.plan_pair_blocks([CARDINALITY] * d, n_classes=2)
    classes = templates.values([(0, "0", 0), (1, "1", 0)], "r", ("class_index", "class_label", "n"))
    scratch = TableName(("bench_pair_counts",))

    def pair_counts_and_cmi() -> None:
        warehouse.run("drop_table", table=scratch)
        warehouse.run(
            "create_pair_counts",
            table=scratch,
            counts=pairs.pair_counts_query(source, "c", names, blocks),
            classes=exp.select(exp.Star()).from_(classes.copy()),
        )
        warehouse.fetch_tree(pairs.information_query(scratch))

    pair_time = best_of(2, pair_counts_and_cmi)
    information = warehouse.fetch_tree(pairs.information_query(scratch))
    weights = pairs.information_matrix(information, names, "cmi")
    tree_time = best_of(5, lambda: spanning_tree.tan_parents(weights.round(12)))
    print(
        f"pair counts + CMI          {pair_time:8.3f} s  = {pair_time / floor:5.1f}x floor "
        f"({len(blocks)} blocks for {d * (d - 1) // 2} pairs)"
    )
    print(f"spanning tree (Python)     {tree_time * 1000:8.3f} ms")

    model = wml.TAN()
    fit_time = best_of(2, lambda: model.fit(con, "t", "c", name="bench"))
    chain = all(model.parents_[f"a{i}"] == f"a{i - 1}" for i in range(1, d))
    print(
        f"TAN fit (total)            {fit_time:8.3f} s  = {fit_time / floor:5.1f}x floor, "
        f"{fit_time / sum_floor:5.1f}x sum floor; recovered the chain: {chain}"
    )

    model.create_view(con, "bench_scores", "t", keys=[])
    scored = exp.select(
        alias(exp.Count(this=exp.Star()), "n"), alias(exp.Sum(this=column("p_1")), "p")
    ).from_(TableName(("bench_scores",)).to_table())
    score_time = best_of(2, lambda: warehouse.fetch_tree(scored))
    print(f"scoring view               {score_time:8.3f} s  = {n / score_time / 1e6:5.2f} M rows/s")

    if pgmpy_budget > 0:
        seconds, text = run_pgmpy(data, pgmpy_budget)
        print(f"pgmpy TreeSearch TAN       {text}")
        if seconds is not None:
            print(f"  TAN fit is {seconds / fit_time:6.1f}x faster than pgmpy structure search")
        else:
            print(
                f"  TAN fit is > {pgmpy_budget / fit_time:6.1f}x faster than pgmpy structure search"
            )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (this process) {peak:8.0f} MB")
    con.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also run d = 20 at N = 10M")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--pgmpy-budget", type=float, default=120.0, help="seconds; 0 = skip")
    args = parser.parse_args()
    print(f"duckdb {duckdb.__version__}, warehouse-ml {wml.__version__}")
    bench(args.rows, 20, args.pgmpy_budget)
    bench(args.rows, 50, args.pgmpy_budget)
    if args.full:
        bench(10 * args.rows, 20, args.pgmpy_budget * 4)


if __name__ == "__main__":
    main()
