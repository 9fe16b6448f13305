"""Linear models: fit against scikit-learn on the same rows and against the one-scan floor, in
the same run (a script, not a test).

    python bench/linear.py                    # 1M rows x 20 attributes
    python bench/linear.py --rows 200000

The data (seeded): fifteen float attributes on different scales (one with 5% NULLs) and five
text attributes of 3 to 7 values, a binary class drawn from a logistic model of them, and an
integer key ``id``; an in-memory DuckDB table ``t``.

* the one-scan floor: ``SELECT y, count(*), sum(x0), ..., sum(hash(t0)), ... FROM t GROUP BY
  y``, which reads every value once;
* logistic regression: ``LogisticRegression(C=1.0)`` (Newton to ``tol=1e-10``) against
  scikit-learn reading the rows from DuckDB, imputing the NULLs by the mean, encoding the text
  by ``OneHotEncoder``, scaling by ``StandardScaler`` and fitting
  ``LogisticRegression(solver="newton-cholesky")``, at ``tol=1e-10`` (the same stopping rule's
  strictness) and at its default ``tol=1e-4`` (target: within 5x of the former);
* linear discriminant: ``LinearDiscriminant()`` against the same read, imputation, encoding
  (the first level dropped) and scaling and ``LinearDiscriminantAnalysis(solver="lsqr")``
  (target: within 2x);
* the process's peak resident memory after the table and our fits, and after scikit-learn's.

Each fit runs ``--repeats`` times (default 2) and the least time is kept, ours and the peers'
alike (the machine may be shared).

Each of our fits is also given as a multiple of the floor (a fit reads the table in the
design's count and moments scans, then once per Newton pass or in the discriminant's one
pass). Prints seconds and the ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import time

import duckdb
import numpy as np
import pyarrow as pa
from sklearn.compose import ColumnTransformer
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import warehouse_ml as wml

TEXT = [f"t{i}" for i in range(5)]
NUMBERS = [f"x{i}" for i in range(15)]


def sample(n: int, seed: int = 0) -> pa.Table:
    """The benchmark table (module docstring)."""
    rng = np.random.default_rng(seed)
    text = {
        name: np.char.add("v", rng.integers(0, 3 + i, n).astype(str)) for i, name in enumerate(TEXT)
    }
    numbers = {name: rng.normal(i, 1 + i, n) for i, name in enumerate(NUMBERS)}
    score = sum((numbers[name] - i) / (1 + i) * (0.5 - 0.07 * i) for i, name in enumerate(NUMBERS))
    score = score + (text["t0"] == "v1") - 0.5 * (text["t3"] == "v2")
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-score))).astype(np.int64)
    missing = rng.random(n) < 0.05
    columns = {**text, **numbers}
    columns["x0"] = pa.array(numbers["x0"], mask=missing)
    return pa.table({"id": np.arange(n), **columns, "y": y})


def timed(run) -> tuple[float, object]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def floor(con: duckdb.DuckDBPyConnection) -> None:
    """One scan reading every value once (module docstring)."""
    sums = [f"sum({c})" for c in NUMBERS] + [f"sum(hash({c}))" for c in TEXT]
    con.sql(f"SELECT y, count(*), {', '.join(sums)} FROM t GROUP BY y").fetchall()


def peer(con: duckdb.DuckDBPyConnection, drop: str | None, estimator) -> object:
    """scikit-learn's read, imputation, encoding, scaling and fit (module docstring)."""
    frame = con.sql("SELECT * FROM t").fetchnumpy()
    numbers = np.column_stack([np.ma.filled(frame[c].astype(float), np.nan) for c in NUMBERS])
    text = np.column_stack([frame[c] for c in TEXT])
    design = ColumnTransformer(
        [
            ("numbers", make_pipeline(SimpleImputer(), StandardScaler()), list(range(15))),
            ("text", OneHotEncoder(drop=drop, handle_unknown="ignore"), list(range(15, 20))),
        ]
    )
    return make_pipeline(design, estimator).fit(np.column_stack([numbers, text]), frame["y"])


def best(run, repeats: int) -> float:
    """The least seconds of ``repeats`` runs of ``run()`` (the machine is shared)."""
    return min(timed(run)[0] for _ in range(repeats))


def peak_mb() -> float:
    """The process's peak resident memory so far, in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def linear_models(con: duckdb.DuckDBPyConnection, rows: int, repeats: int) -> None:
    """The logistic regression and the linear discriminant (module docstring)."""
    features = [*TEXT, *NUMBERS]
    scan = best(lambda: floor(con), 3)
    print(f"rows {rows}, attributes {len(features)}; one-scan floor {scan:.3f} s")
    lr, lda = wml.LogisticRegression(), wml.LinearDiscriminant()
    ours_lr = best(lambda: lr.fit(con, "t", "y", features=features, name="lr"), repeats)
    ours_lda = best(lambda: lda.fit(con, "t", "y", features=features, name="lda"), repeats)
    ours_peak = peak_mb()
    strict = best(
        lambda: peer(con, None, LogisticRegression(solver="newton-cholesky", tol=1e-10)), repeats
    )
    loose = best(lambda: peer(con, None, LogisticRegression(solver="newton-cholesky")), repeats)
    theirs = best(lambda: peer(con, "first", LinearDiscriminantAnalysis(solver="lsqr")), repeats)
    print(
        f"logistic regression fit: {ours_lr:.2f} s ({lr.n_iter_} Newton passes), "
        f"{ours_lr / scan:.1f}x the floor; scikit-learn (read, impute, encode, scale, fit) "
        f"{strict:.2f} s at tol=1e-10, {loose:.2f} s at tol=1e-4; ratio {ours_lr / strict:.2f} "
        f"(target <= 5), {ours_lr / loose:.2f}"
    )
    print(
        f"linear discriminant fit: {ours_lda:.2f} s, {ours_lda / scan:.1f}x the floor; "
        f"scikit-learn (read, impute, encode, scale, fit) {theirs:.2f} s; ratio "
        f"{ours_lda / theirs:.2f} (target <= 2)"
    )
    print(
        f"peak resident memory of the process: {ours_peak:.0f} MB after the table and our "
        f"fits, {peak_mb():.0f} MB after scikit-learn's"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=2, help="runs of each fit, the best kept")
    args = parser.parse_args()
    con = duckdb.connect()
    con.register("rows", sample(args.rows))
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    con.unregister("rows")
    linear_models(con, args.rows, args.repeats)


if __name__ == "__main__":
    main()
