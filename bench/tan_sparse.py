"""TAN over two many-valued integer codes: fit time, memory and model size (a script, not a test).

    python bench/tan_sparse.py                          # 200k rows, two 3,500-value codes
    python bench/tan_sparse.py --rows 50000 --values 1000
    python bench/tan_sparse.py --compare-with DIR       # also fit with the warehouse_ml in DIR
                                                        # (e.g. an export of an older commit)

The data, in a DuckDB file database (table ``t``): integer codes ``a`` (uniform over
``--values`` values) and ``b`` (``a`` times 7 plus a noise of 0..20, modulo ``--values``: about
21 counted (a, b) pairs per value of a), four low-cardinality codes ``l0 .. l3`` and a binary
class ``c`` depending on a, b and l0. Each measurement runs in a child process on its own copy
of that file, so its peak resident memory (ru_maxrss, DuckDB included) is its own:

* floor: one scan reading every value (``sum(hash(col))`` of every column, as bench/tan.py);
* TAN fit: ``TAN().fit(con, "t", "c", categorical=["a", "b"], allow_high_cardinality=True)``:
  seconds, peak memory, the model's parameter rows (every part) and lookup codes, and the
  growth of the database file over the fit (after CHECKPOINT);
* scoring: reading the model's prediction view over ``t`` (count and sum of p_1).

Ratios are against the floor measured in the same run. Targets: peak memory under 500 MB, model
under 20 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
from sqlglot import exp
from tan import floor_queries  # bench/tan.py

import warehouse_ml as wml
from warehouse_ml.sqlgen.templates import TableName, alias, column

TARGET_MB = 500
TARGET_MODEL_MB = 20


def sample(n: int, values: int, seed: int = 0) -> pa.Table:
    """The benchmark table (see the module doc)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, values, n)
    b = (7 * a + rng.integers(0, 21, n)) % values
    low = [rng.integers(0, k, n) for k in (3, 4, 5, 2)]
    signal = (a % 2) + (b % 3 == 0) + (low[0] == 1)
    c = ((signal + (rng.random(n) < 0.25)) % 2).astype(np.int64)
    columns = {"a": a, "b": b, **{f"l{i}": v for i, v in enumerate(low)}, "c": c}
    return pa.table({name: pa.array(v, pa.int64()) for name, v in columns.items()})


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _size_mb(path: str) -> float:
    return os.path.getsize(path) / 2**20


# -- children: each prints one JSON line ---------------------------------------------------
def child_floor(path: str) -> dict:
    con = duckdb.connect(path)
    names = [c for c in con.table("t").columns if c != "c"]
    hashed, _ = floor_queries(names)
    warehouse = wml.connect(con)
    seconds = min(_timed(lambda: warehouse.fetch_tree(hashed)) for _ in range(3))
    return {"seconds": seconds, "peak_mb": _peak_mb()}


def child_fit(path: str) -> dict:
    con = duckdb.connect(path)
    con.execute("CHECKPOINT")
    before = _size_mb(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wml.errors.HighCardinalityWarning)
        start = time.perf_counter()
        model = wml.TAN().fit(
            con, "t", "c", categorical=["a", "b"], allow_high_cardinality=True, name="bench"
        )
        seconds = time.perf_counter() - start
    con.execute("CHECKPOINT")
    warehouse = wml.connect(con)
    rows = {}
    for part in model.record.parts:
        counted = exp.select(alias(exp.Count(this=exp.Star()), "n")).from_(
            model.record.table(part).to_table()
        )
        rows[part] = warehouse.fetch_tree(counted)["n"][0].as_py()
    return {
        "seconds": seconds,
        "peak_mb": _peak_mb(),
        "model_mb": _size_mb(path) - before,
        "rows": rows,
        "lookup": sorted(model.record.state.learned.lookup or {}),
        "parents": model.parents_,
    }


def child_score(path: str) -> dict:
    con = duckdb.connect(path)
    model = wml.load(con, "bench")
    model.create_view(con, "bench_scores", "t", keys=[])
    scored = exp.select(
        alias(exp.Count(this=exp.Star()), "n"), alias(exp.Sum(this=column("p_1")), "p")
    ).from_(TableName(("bench_scores",)).to_table())
    warehouse = wml.connect(con)
    seconds = min(_timed(lambda: warehouse.fetch_tree(scored)) for _ in range(2))
    return {"seconds": seconds, "peak_mb": _peak_mb()}


CHILDREN = {"floor": child_floor, "fit": child_fit, "score": child_score}


def _timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def run_child(kind: str, path: str, code: str | None = None) -> dict:
    """Run one measurement in a child process (with the warehouse_ml found in ``code``, else
    this one) and return what it printed."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([code, str(Path(__file__).parent)])
    done = subprocess.run(
        [sys.executable, __file__, "--child", kind, path],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{kind} child failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- report ------------------------------------------------------------------------------------
def report(label: str, fit: dict, score: dict, floor: dict, n: int) -> None:
    total = sum(fit["rows"].values())
    parts = ", ".join(f"{part} {rows:,}" for part, rows in fit["rows"].items())
    print(f"\n-- {label} --")
    print(f"tree                       {fit['parents']}")
    print(f"looked-up attributes       {fit['lookup']}")
    print(
        f"TAN fit                    {fit['seconds']:8.2f} s  = {fit['seconds'] / floor['seconds']:6.1f}x"
        " floor"
    )
    print(
        f"peak memory (fit child)    {fit['peak_mb']:8.0f} MB = "
        f"{fit['peak_mb'] / floor['peak_mb']:6.1f}x floor child; target < {TARGET_MB} MB: "
        f"{'met' if fit['peak_mb'] < TARGET_MB else 'MISSED'}"
    )
    print(
        f"model size (file growth)   {fit['model_mb']:8.1f} MB; target < {TARGET_MODEL_MB} MB: "
        f"{'met' if fit['model_mb'] < TARGET_MODEL_MB else 'MISSED'}"
    )
    print(f"model rows                 {total:8,} ({parts})")
    print(
        f"scoring view               {score['seconds']:8.2f} s  = {n / score['seconds'] / 1e6:5.2f} M"
        f" rows/s, peak {score['peak_mb']:.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--values", type=int, default=3_500, help="values of a and of b")
    parser.add_argument(
        "--compare-with", metavar="DIR", help="also fit with the warehouse_ml package in DIR"
    )
    parser.add_argument("--child", nargs=2, metavar=("KIND", "DATABASE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, path = args.child
        print(json.dumps(CHILDREN[kind](path)))
        return
    print(f"duckdb {duckdb.__version__}, warehouse-ml {wml.__version__}")
    print(f"== N = {args.rows:,} rows, a and b with {args.values:,} integer values each ==")
    with tempfile.TemporaryDirectory() as folder:
        data = str(Path(folder) / "data.duckdb")
        con = duckdb.connect(data)
        con.register("incoming", sample(args.rows, args.values))
        con.execute("CREATE TABLE t AS SELECT * FROM incoming")
        con.close()
        pairs = duckdb.connect(data, read_only=True)
        counted = pairs.execute("SELECT count(*) FROM (SELECT DISTINCT a, b FROM t)").fetchone()
        pairs.close()
        print(f"counted (a, b) pairs        {counted[0]:,} (dense: {args.values**2:,})")

        def copy(name: str) -> str:
            path = str(Path(folder) / f"{name}.duckdb")
            shutil.copyfile(data, path)
            return path

        floor = run_child("floor", copy("floor"))
        print(
            f"floor sum(hash(col))       {floor['seconds']:8.3f} s, peak {floor['peak_mb']:.0f} MB"
        )
        runs = [("this checkout", None)]
        if args.compare_with:
            runs.append((f"warehouse_ml from {args.compare_with}", args.compare_with))
        for index, (label, code) in enumerate(runs):
            path = copy(f"fit{index}")
            fit = run_child("fit", path, code)
            score = run_child("score", path, code)
            report(label, fit, score, floor, args.rows)


if __name__ == "__main__":
    main()
