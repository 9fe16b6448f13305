"""Fits on data larger than DuckDB's memory limit: time, peak memory and spill (a script, not a test).

    python bench/spill.py                          # 20M rows x 20 attributes, memory_limit 500MB
    python bench/spill.py --rows 2000000 --memory-limit 100MB     # a quick look

It writes a DuckDB file with a table of ``--rows`` rows: 16 categorical attributes (integer
codes sampled from a chain TAN network, cardinalities 3 to 12) and 4 numeric attributes (a
class-dependent Gaussian each), plus the class. Then, each in a fresh process (so that peak
memory is the fit's own), it fits Naive Bayes and TAN

* constrained: ``memory_limit`` = ``--memory-limit``, ``temp_directory`` = a folder of its own;
* unconstrained (the baseline, measured in the same run): DuckDB's default memory limit (80% of
  RAM) with its own temporary folder;

and prints for each: wall time, the process's resident memory before the fit (Python, pyarrow,
DuckDB loaded and connected) and its peak during the fit (``VmHWM``), the peak size of the
temporary folder (sampled every 0.1 s: what DuckDB spilled) and its slowest statements; then how the constrained fit's parameter tables
compare with the unconstrained one's (counts must be identical; floating-point columns are
compared by their largest relative difference, 0 when the fits are bit-identical, as they are
since the moments and CMI/MI became exact sums). Ratios are constrained / unconstrained.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

import warehouse_ml as wml
from warehouse_ml import synthetic
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName

TABLE = TableName(("spill_data",))
CATEGORICAL = 16
NUMERIC = 4
CHUNK = 1_000_000
KINDS = {"nb": wml.NaiveBayes, "tan": wml.TAN}


def chunk_table(network: synthetic.Network, rows: int, seed: int) -> pa.Table:
    """``rows`` rows: a0..a15 (int32 codes from ``network``), x0..x3 (float64), class."""
    codes = synthetic.sample_codes(network, rows, seed=seed)
    rng = np.random.default_rng(seed + 10_007)
    klass = codes.pop("class")
    columns: dict[str, np.ndarray] = dict(codes)
    for j in range(NUMERIC):
        columns[f"x{j}"] = rng.normal(klass * (0.5 + 0.25 * j), 1.0 + 0.1 * j)
    columns["class"] = klass
    return pa.table(columns)


def build(db: Path, rows: int) -> float:
    """Write the data table into ``db`` chunk by chunk; returns the seconds it took."""
    started = time.perf_counter()
    cardinalities = [3 + (i * 5) % 10 for i in range(CATEGORICAL)]
    network = synthetic.make_network(
        CATEGORICAL, cardinality=cardinalities, concentration=1.0, seed=3
    )
    con = duckdb.connect(str(db))
    warehouse = wml.connect(con)
    for index, start in enumerate(range(0, rows, CHUNK)):
        data = chunk_table(network, min(CHUNK, rows - start), seed=index + 1)
        name = warehouse.register_arrow(data)
        if index == 0:
            warehouse.run_tree(
                templates.create_table_as(TABLE, templates.build("select_all", source=name))
            )
        else:
            warehouse.run("insert_rows", table=TABLE, rows=name.to_table())
        warehouse.unregister(name)
    con.close()
    return time.perf_counter() - started


def folder_size(folder: Path) -> int:
    """Bytes in the files under ``folder`` (0 if it does not exist)."""
    total = 0
    for root, _, files in os.walk(folder):
        for file in files:
            with contextlib.suppress(FileNotFoundError):  # DuckDB removed it meanwhile
                total += (Path(root) / file).stat().st_size
    return total


def _status_mb(field: str) -> float | None:
    """A memory figure of this process from /proc/self/status, in MB (None off Linux)."""
    status = Path("/proc/self/status")
    if not status.exists():
        return None
    for line in status.read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return None


def peak_rss_mb() -> float:
    """This process's peak resident memory since it started (``VmHWM``; ``ru_maxrss`` would
    also count the parent's memory before ``exec``)."""
    peak = _status_mb("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def current_rss_mb() -> float:
    """This process's resident memory now (MB; 0 off Linux)."""
    return _status_mb("VmRSS") or 0.0


def child(
    db: Path, kind: str, memory_limit: str | None, temp: Path, output: Path
) -> dict[str, object]:
    """One fit in this process, its parameter tables written to ``output/<part>.parquet``;
    returns its figures (printed as JSON by ``--child``)."""
    config = {"temp_directory": str(temp)}
    if memory_limit:
        config["memory_limit"] = memory_limit
    con = duckdb.connect(str(db), config=config)
    peak_temp = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            peak_temp[0] = max(peak_temp[0], folder_size(temp))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    slowest: dict[str, float] = {}
    last = [time.monotonic(), ""]

    def progress(report: wml.Progress) -> None:
        now = time.monotonic()
        if last[1]:
            slowest[last[1]] = slowest.get(last[1], 0.0) + now - last[0]
        last[:] = [now, report.phase.split(" ")[0]]

    rss_before = current_rss_mb()
    started = time.perf_counter()
    model = KINDS[kind]().fit(
        con, str(TABLE), "class", name=f"{kind}_{memory_limit or 'default'}", progress=progress
    )
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    output.mkdir(parents=True, exist_ok=True)
    for part, table in model.parameters(con).items():
        pq.write_table(table, output / f"{part}.parquet")
    con.close()
    top = sorted(slowest.items(), key=lambda item: -item[1])[:3]
    return {
        "seconds": seconds,
        "peak_rss_mb": peak_rss_mb(),
        "rss_before_mb": rss_before,
        "peak_temp_mb": peak_temp[0] / 2**20,
        "slowest": ", ".join(f"{name} {t:.1f} s" for name, t in top),
    }


def compare(left: Path, right: Path) -> str:
    """How two fits' parameter tables (folders of Parquet files) differ: integer and text
    columns must be equal, float columns are compared by their largest relative difference."""
    parts = sorted(p.name for p in left.glob("*.parquet"))
    if parts != sorted(p.name for p in right.glob("*.parquet")):
        return "different parameter tables"
    worst = 0.0
    for part in parts:
        a, b = pq.read_table(left / part), pq.read_table(right / part)
        if a.schema != b.schema or a.num_rows != b.num_rows:
            return f"{part}: different shape"
        for name in a.column_names:
            x, y = a[name].to_numpy(zero_copy_only=False), b[name].to_numpy(zero_copy_only=False)
            if pa.types.is_floating(a.schema.field(name).type):
                scale = np.maximum(np.abs(x), np.abs(y))
                scale[scale == 0] = 1.0
                worst = max(worst, float(np.nanmax(np.abs(x - y) / scale, initial=0.0)))
            elif not np.array_equal(x, y):
                return f"{part}.{name}: different values"
    return f"counts identical, floats within {worst:.1e} (relative)"


def run_child(
    db: Path, kind: str, memory_limit: str | None, temp: Path, output: Path
) -> dict[str, object]:
    """:func:`child` in a fresh Python process."""
    command = [
        sys.executable, __file__, "--child", kind, "--db", str(db), "--temp", str(temp),
        "--output", str(output),
    ]  # fmt: skip
    if memory_limit:
        command += ["--memory-limit", memory_limit]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--memory-limit", default="500MB")
    parser.add_argument(
        "--db", help="DuckDB file (default: a temporary folder, removed at the end)"
    )
    parser.add_argument("--kinds", default="nb,tan", help="comma-separated: nb, tan")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--temp", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        figures = child(
            Path(args.db), args.child, args.memory_limit, Path(args.temp), Path(args.output)
        )
        print(json.dumps(figures))
        return

    folder = Path(tempfile.mkdtemp(prefix="wml-spill-"))
    db = Path(args.db) if args.db else folder / "spill.duckdb"
    try:
        if not db.exists():
            seconds = build(db, args.rows)
            print(f"built {db} in {seconds:.0f} s")
        size = db.stat().st_size / 2**20
        print(
            f"table: {args.rows:,} rows x {CATEGORICAL + NUMERIC} attributes "
            f"({CATEGORICAL} categorical int codes, {NUMERIC} numeric) + class; "
            f"database file {size:.0f} MB; {os.cpu_count()} cores"
        )
        header = (
            f"{'fit':4} {'memory_limit':>12} {'time':>8} {'RSS before':>10} {'peak RSS':>10} "
            f"{'peak temp':>10}  slowest statements"
        )
        print(header)
        for kind in args.kinds.split(","):
            results = {}
            for limit in (args.memory_limit, None):
                temp = folder / f"temp_{kind}_{limit or 'default'}"
                figures = run_child(db, kind, limit, temp, folder / f"params_{kind}_{limit}")
                shutil.rmtree(temp, ignore_errors=True)
                results[limit] = figures
                label = limit or "default"
                if "error" in figures:
                    print(f"{kind:4} {label:>12} failed: {figures['error']}")
                    continue
                print(
                    f"{kind:4} {label:>12} {figures['seconds']:7.1f}s "
                    f"{figures['rss_before_mb']:8.0f}MB {figures['peak_rss_mb']:8.0f}MB {figures['peak_temp_mb']:8.0f}MB  "
                    f"{figures['slowest']}"
                )
            low, high = results[args.memory_limit], results[None]
            if "error" not in low and "error" not in high:
                print(
                    f"{kind:4} ratio constrained/default: time {low['seconds'] / high['seconds']:.2f}x, "
                    f"peak RSS {low['peak_rss_mb'] / high['peak_rss_mb']:.2f}x; parameters: "
                    + compare(
                        folder / f"params_{kind}_{args.memory_limit}",
                        folder / f"params_{kind}_None",
                    )
                )
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # an --db file given is kept


if __name__ == "__main__":
    main()
