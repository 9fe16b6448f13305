"""Linear models: fit against scikit-learn on the same rows and against the one-scan floor, in
the same run (a script, not a test).

    python bench/linear.py                    # 1M rows x 20 attributes
    python bench/linear.py --rows 200000
    python bench/linear.py --only knn         # k nearest neighbours alone
    python bench/linear.py --only svm --rows 20000   # the linear SVM alone

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

The linear SVM (``--svm-rows`` of the same data, default 20,000: its fit makes several passes
per fold):

* ``LinearSVM(C=1.0, key="id")`` (finite Newton to ``tol=1e-10``, Platt's sigmoids on 5
  folds) against scikit-learn reading, imputing, encoding (every level) and scaling the rows as
  for the logistic regression, then ``CalibratedClassifierCV(LinearSVC(dual=False),
  method="sigmoid", ensemble=False, cv=5)`` (the probabilities' fit: the SVM on every fold and
  on all rows) and ``LinearSVC(dual=False)`` alone, both at liblinear's default tolerance;
* the statements of our fit (a progress callback counts them) and its Newton and line passes;
* the peak resident memory after ours and after scikit-learn's.

k nearest neighbours (``--knn-train`` stored rows, default 100,000, and ``--knn-scored``
scored rows, default 10,000, of eight of the float attributes, none with NULLs):

* scoring: ``KNearestNeighbors(k=5).predict_proba`` of the scored table (the standardised
  search in SQL, DuckDB's top-k aggregate) against scikit-learn reading both tables from DuckDB,
  scaling by ``StandardScaler`` and ``KNeighborsClassifier(5, algorithm="brute")``'s fit and
  ``predict_proba`` (target: within 20x); its floor is one pass over every pair computing its
  squared distance once and keeping each scored row's least (no top-k, no votes);
* one row: a prediction view over a one-row table, read with ``SELECT *`` (target: under
  200 ms), and the same row read by its key from a view over the scored table; its floor is
  one scan of the stored rows computing their distance to the row's literal values; and the
  whole view over the scored table read into Arrow, against ``predict_proba``;
* the peak resident memory after ours and after scikit-learn's.

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
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import LinearSVC

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


def peer(con: duckdb.DuckDBPyConnection, drop: str | None, estimator, table: str = "t") -> object:
    """scikit-learn's read, imputation, encoding, scaling and fit (module docstring)."""
    frame = con.sql(f"SELECT * FROM {table}").fetchnumpy()
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


def linear_svm(con: duckdb.DuckDBPyConnection, rows: int, repeats: int) -> None:
    """The linear SVM against scikit-learn's calibrated LinearSVC (module docstring)."""
    con.register("rows", sample(rows, 3))
    con.execute("CREATE OR REPLACE TABLE svm_t AS SELECT * FROM rows")
    con.unregister("rows")
    features = [*TEXT, *NUMBERS]
    sums = [f"sum({c})" for c in NUMBERS] + [f"sum(hash({c}))" for c in TEXT]
    query = f"SELECT y, count(*), {', '.join(sums)} FROM svm_t GROUP BY y"
    scan = best(lambda: con.sql(query).fetchall(), 3)
    statements = []
    model = wml.LinearSVM(key="id")

    def fit() -> object:
        statements.clear()
        return model.fit(
            con, "svm_t", "y", features=features, name="svm", progress=statements.append
        )

    ours = best(fit, repeats)
    ours_peak = peak_mb()
    report = model.record.state.learned
    calibrated = best(
        lambda: peer(
            con,
            None,
            CalibratedClassifierCV(LinearSVC(dual=False), method="sigmoid", ensemble=False, cv=5),
            "svm_t",
        ),
        repeats,
    )
    plain = best(lambda: peer(con, None, LinearSVC(dual=False), "svm_t"), repeats)
    print(
        f"linear SVM fit, {rows} rows: {ours:.2f} s, {ours / scan:.1f}x the one-scan floor "
        f"({scan:.3f} s); {len(statements)} statements, the whole set's {model.n_iter_} Newton "
        f"and {report.line_passes} line passes; scikit-learn (read, impute, encode, scale) "
        f"CalibratedClassifierCV(LinearSVC, cv=5) {calibrated:.2f} s, LinearSVC alone "
        f"{plain:.2f} s; ratio {ours / calibrated:.2f}"
    )
    print(
        f"peak resident memory of the process: {ours_peak:.0f} MB after our SVM fit, "
        f"{peak_mb():.0f} MB after scikit-learn's"
    )


KNN_FEATURES = NUMBERS[1:9]


def nearest_neighbours(
    con: duckdb.DuckDBPyConnection, train_rows: int, scored_rows: int, repeats: int
) -> None:
    """k nearest neighbours' scoring and one-row view (module docstring)."""
    for name, rows, seed in (("knn_train", train_rows, 1), ("knn_scored", scored_rows, 2)):
        con.register("rows", sample(rows, seed).select(["id", *KNN_FEATURES, "y"]))
        con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM rows")
        con.unregister("rows")
    con.execute("CREATE OR REPLACE TABLE knn_one AS SELECT * FROM knn_scored WHERE id = 7")
    model = wml.KNearestNeighbors(k=5).fit(
        con, "knn_train", "y", features=KNN_FEATURES, keys=["id"], name="knn"
    )
    moments = [
        con.execute(f"SELECT avg({c}), stddev_pop({c}) FROM knn_train").fetchall()[0]
        for c in KNN_FEATURES
    ]
    scaled = ", ".join(
        f"(s.{c} - {m!r}) / {d!r} AS {c}" for c, (m, d) in zip(KNN_FEATURES, moments, strict=True)
    )
    squared = " + ".join(f"(q.{c} - r.{c}) * (q.{c} - r.{c})" for c in KNN_FEATURES)
    pairs = (
        f"SELECT q.id, min({squared}) AS least FROM (SELECT s.id, {scaled} FROM knn_scored AS s) AS q, "
        f"(SELECT s.id, {scaled} FROM knn_train AS s) AS r GROUP BY q.id"
    )
    pair_floor = best(lambda: con.sql(f"SELECT sum(least) FROM ({pairs})").fetchall(), repeats)
    ours = best(lambda: model.predict_proba(con, "knn_scored"), repeats)
    ours_peak = peak_mb()

    def theirs() -> object:
        train = con.sql("SELECT * FROM knn_train").fetchnumpy()
        scored = con.sql("SELECT * FROM knn_scored").fetchnumpy()
        scaler = StandardScaler().fit(np.column_stack([train[c] for c in KNN_FEATURES]))
        peer = KNeighborsClassifier(5, algorithm="brute").fit(
            scaler.transform(np.column_stack([train[c] for c in KNN_FEATURES])), train["y"]
        )
        return peer.predict_proba(
            scaler.transform(np.column_stack([scored[c] for c in KNN_FEATURES]))
        )

    peer_time = best(theirs, repeats)
    print(
        f"k-NN scoring, {scored_rows} rows against {train_rows} stored rows: {ours:.2f} s, "
        f"{ours / pair_floor:.1f}x the pair-scan floor ({pair_floor:.2f} s); scikit-learn "
        f"(read, scale, fit, predict_proba, brute) {peer_time:.2f} s; ratio "
        f"{ours / peer_time:.2f} (target <= 20)"
    )
    model.create_view(con, "knn_one_scores", "knn_one", keys=["id"])
    model.create_view(con, "knn_scores", "knn_scored", keys=["id"])
    row = con.execute(f"SELECT {scaled} FROM knn_one AS s").fetchall()[0]
    literal_row = ", ".join(f"{v!r} AS {c}" for v, c in zip(row, KNN_FEATURES, strict=True))
    one_floor = best(
        lambda: con.sql(
            f"SELECT min({squared}) FROM (SELECT {literal_row}) AS q, "
            f"(SELECT s.id, {scaled} FROM knn_train AS s) AS r"
        ).fetchall(),
        5,
    )
    one = best(lambda: con.sql("SELECT * FROM knn_one_scores").fetchall(), 5)
    keyed = best(lambda: con.sql("SELECT * FROM knn_scores WHERE id = 7").fetchall(), 5)
    whole = best(lambda: con.sql("SELECT * FROM knn_scores").to_arrow_table(), repeats)
    print(
        f"k-NN one-row view query: {one * 1000:.1f} ms (target < 200 ms), "
        f"{one / one_floor:.1f}x the one-scan floor ({one_floor * 1000:.1f} ms); the same row "
        f"by its key from a view over the {scored_rows} scored rows: {keyed * 1000:.1f} ms; "
        f"that whole view read into Arrow: {whole:.2f} s ({whole / ours:.2f}x predict_proba)"
    )
    print(
        f"peak resident memory of the process: {ours_peak:.0f} MB after our k-NN scoring, "
        f"{peak_mb():.0f} MB after scikit-learn's"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=2, help="runs of each fit, the best kept")
    parser.add_argument("--knn-train", type=int, default=100_000, help="k-NN stored rows")
    parser.add_argument("--knn-scored", type=int, default=10_000, help="k-NN scored rows")
    parser.add_argument("--svm-rows", type=int, default=20_000, help="the linear SVM's rows")
    parser.add_argument("--only", choices=["linear", "svm", "knn"], help="one part of the bench")
    args = parser.parse_args()
    con = duckdb.connect()
    if args.only in (None, "linear"):
        con.register("rows", sample(args.rows))
        con.execute("CREATE TABLE t AS SELECT * FROM rows")
        con.unregister("rows")
        linear_models(con, args.rows, args.repeats)
    if args.only in (None, "svm"):
        linear_svm(con, args.svm_rows, args.repeats)
    if args.only in (None, "knn"):
        nearest_neighbours(con, args.knn_train, args.knn_scored, args.repeats)


if __name__ == "__main__":
    main()
