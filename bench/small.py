"""Small tables: the per-call cost of warehouse-ml against scikit-learn on the shared UCI data.

Run: ``python bench/small.py`` (data sets from ``$WML_DATASETS`` or ``../shared/datasets``;
``--repeat`` measurements per call, the median is printed).

For each categorical data set (every attribute text), in one process and one run:

* the one-scan floor: ``SELECT count(*), sum(length(a0)), ... FROM t`` on the same DuckDB table;
* Naive Bayes ``fit``, ``predict_proba`` and 10-fold ``cross_validate`` (stratified MD5 folds)
  on an in-memory DuckDB table, against the same work in scikit-learn on the same raw rows:
  ``OrdinalEncoder`` fit + ``CategoricalNB`` fit + ``joblib.dump`` of the fitted encoder and
  model to a file (a fitted warehouse-ml model is persisted in the catalog, so the peer's
  fit is persisted too); ``OrdinalEncoder`` transform + ``predict_proba``;
  ``cross_val_score`` of ``CategoricalNB`` on the encoded rows plus the encoding (missing
  values are one more category there, as they are ignored here: the work, not the numbers,
  is compared);
* TAN ``fit`` and ``predict_proba``, which scikit-learn does not have, against the absolute
  target of 50 ms for ``predict_proba``; TAN 10-fold ``cross_validate`` against one TAN
  ``fit`` of ours (what a cross-validation costs in fits), on the data sets ``--tan-cv``
  names (default kr-vs-kp: it takes minutes on the widest ones);
* a point query (``WHERE id = ...``) and ``LIMIT 1`` through the NB and TAN prediction views,
  run as a SQL client runs a statement (DB-API ``execute``, then fetch), against the target of
  20 ms;
* the first ``predict_proba`` of each model after its fit, which builds the scoring query that
  later calls of the process reuse (models/scoring/compiled.py): its time alone.

Printed: a row per data set and call (milliseconds, the ratio to its peer: scikit-learn, our
TAN fit or the target), the median ratio per call over the data sets, the median of every
ratio (over calls and data sets), the median of the ratios to scikit-learn alone, and the
process's peak memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pv
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.sqlgen.templates import column, literal

REPO = Path(__file__).resolve().parents[1]
KEY = "wml_bench_id"
TARGET_PREDICT_MS = 50.0
TARGET_POINT_MS = 20.0


def datasets_dir() -> Path | None:
    for candidate in (os.environ.get("WML_DATASETS"), REPO.parent / "shared" / "datasets"):
        if candidate and Path(candidate, "SOURCES.md").is_file():
            return Path(candidate)
    return None


def categorical_sets(folder: Path) -> dict[str, pa.Table]:
    """Every data set whose columns are all text: read as strings (empty field = NULL), the
    class last, a key column added first; a column with distinct values on more than half
    of the rows (an identifier, e.g. splice's Instance_name) is left out, as a user would."""
    found = {}
    for path in sorted(folder.glob("*.csv")):
        if path.stem.endswith(("_test", "_train")):  # parts of another file
            continue
        inferred = pv.read_csv(path)
        if not all(pa.types.is_string(f.type) for f in inferred.schema):
            continue
        table = pv.read_csv(
            path,
            convert_options=pv.ConvertOptions(
                column_types={name: pa.string() for name in inferred.column_names},
                strings_can_be_null=True,
            ),
        )
        identifiers = [
            name
            for name in table.column_names[:-1]
            if pc.count_distinct(table.column(name)).as_py() > table.num_rows / 2
        ]
        table = table.drop_columns(identifiers)
        found[path.stem] = table.add_column(0, KEY, pa.array(np.arange(table.num_rows)))
    return found


def median_ms(repeat: int, call: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def sklearn_calls(table: pa.Table) -> dict[str, Callable[[], object]]:
    """The scikit-learn work matching each of our calls, on the same raw rows."""
    import joblib
    from sklearn.model_selection import StratifiedKFold, cross_val_score
    from sklearn.naive_bayes import CategoricalNB
    from sklearn.preprocessing import OrdinalEncoder

    target = table.column_names[-1]
    x = np.array(
        [table.column(n).fill_null("?").to_pylist() for n in table.column_names[1:-1]],
        dtype=object,
    ).T
    y = np.array(table.column(target).fill_null("?").to_pylist(), dtype=object)
    encoder = OrdinalEncoder().fit(x)
    encoded = encoder.transform(x)
    counts = [len(c) for c in encoder.categories_]
    model = CategoricalNB(min_categories=counts).fit(encoded, y)

    def fit() -> None:
        fitted = OrdinalEncoder().fit(x)
        classifier = CategoricalNB(min_categories=counts).fit(fitted.transform(x), y)
        with tempfile.TemporaryDirectory(prefix="wml-small-") as folder:
            joblib.dump((fitted, classifier), Path(folder, "model.joblib"))

    def cross_validate() -> None:
        codes = OrdinalEncoder().fit(x).transform(x)
        folds = StratifiedKFold(10, shuffle=True, random_state=0)
        cross_val_score(CategoricalNB(min_categories=counts), codes, y, cv=folds)

    return {
        "nb fit": fit,
        "nb predict_proba": lambda: model.predict_proba(encoder.transform(x)),
        "nb 10-fold cv": cross_validate,
    }


def sql_of(query: exp.Expression) -> str:
    return query.sql(dialect="duckdb")


def our_calls(
    con: duckdb.DuckDBPyConnection, table: pa.Table, tan_cv: bool
) -> tuple[dict[str, float], dict[str, Callable[[], object]]]:
    """Our calls on table ``t`` of ``con`` (the models and views they query made first, TAN's
    cross-validation only with ``tan_cv``), and the milliseconds of each model's first
    ``predict_proba``."""
    target = table.column_names[-1]
    nb = wml.NaiveBayes().fit(con, "t", target, keys=[KEY], name="small_nb")
    tan = wml.TAN().fit(con, "t", target, keys=[KEY], name="small_tan")
    first = {
        "nb predict_proba, first": median_ms(1, lambda: nb.predict_proba(con, "t")),
        "tan predict_proba, first": median_ms(1, lambda: tan.predict_proba(con, "t")),
    }
    nb.create_view(con, "small_nb_scores", "t", keys=[KEY])
    tan.create_view(con, "small_tan_scores", "t", keys=[KEY])
    floor = sql_of(
        exp.select(
            exp.Count(this=exp.Star()),
            *[exp.Sum(this=exp.Length(this=column(n))) for n in table.column_names[1:]],
        ).from_("t")
    )

    def point(view: str) -> str:
        middle = literal(table.num_rows // 2)
        return sql_of(
            exp.select("*").from_(view).where(exp.EQ(this=column(KEY), expression=middle))
        )

    tan_cross_validation = {
        "tan 10-fold cv": lambda: wml.cross_validate(
            con, "t", target, wml.TAN(), folds=10, key=KEY
        ).drop()
    }
    return first, {
        "floor": lambda: con.sql(floor).fetchall(),
        "nb fit": lambda: wml.NaiveBayes().fit(con, "t", target, keys=[KEY], name="timed_nb"),
        "nb predict_proba": lambda: nb.predict_proba(con, "t"),
        "nb 10-fold cv": lambda: wml.cross_validate(
            con, "t", target, wml.NaiveBayes(), folds=10, key=KEY
        ).drop(),
        "tan fit": lambda: wml.TAN().fit(con, "t", target, keys=[KEY], name="timed_tan"),
        **(tan_cross_validation if tan_cv else {}),
        "tan predict_proba": lambda: tan.predict_proba(con, "t"),
        "nb view point query": lambda: con.execute(point("small_nb_scores")).fetchall(),
        "tan view point query": lambda: con.execute(point("small_tan_scores")).fetchall(),
        "tan view limit 1": lambda: con.execute(
            sql_of(exp.select("*").from_("small_tan_scores").limit(1))
        ).fetchall(),
    }


SKLEARN_CALLS = ("nb fit", "nb predict_proba", "nb 10-fold cv")
"""Calls compared with scikit-learn (:func:`sklearn_calls`)."""

OWN_PEERS = {"tan 10-fold cv": "tan fit"}
"""Calls compared with another call of ours in the same run: a cross-validation with one fit."""

TARGETS = {
    "tan predict_proba": TARGET_PREDICT_MS,
    "nb view point query": TARGET_POINT_MS,
    "tan view point query": TARGET_POINT_MS,
    "tan view limit 1": TARGET_POINT_MS,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="measurements per call (median)")
    parser.add_argument("--only", nargs="*", help="data set names (default: every categorical one)")
    parser.add_argument(
        "--tan-cv", nargs="*", default=["kr-vs-kp"], help="data sets to cross-validate TAN on"
    )
    args = parser.parse_args()
    # scikit-learn's notice that a class has fewer rows than folds (soybean, nursery...)
    warnings.filterwarnings("ignore", "The least populated class", UserWarning)
    folder = datasets_dir()
    if folder is None:
        sys.exit("no shared data sets: set WML_DATASETS to the folder holding SOURCES.md")
    sets = categorical_sets(folder)
    if args.only:
        sets = {name: sets[name] for name in args.only}
    ratios: dict[str, list[float]] = {}
    print(f"{'data set':16s} {'rows':>6s} {'attrs':>5s} {'call':22s} {'ours ms':>9s} "
          f"{'peer ms':>9s} {'ratio':>7s}  (peer: scikit-learn, our TAN fit, or the target in ms)")  # fmt: skip
    for name, table in sets.items():
        con = duckdb.connect()
        con.register("arrow_source", table)
        con.execute(sql_of(exp.select("*").from_("arrow_source").ctas("t")))
        first, calls = our_calls(con, table, name in args.tan_cv)
        ours = {call: median_ms(args.repeat, fn) for call, fn in calls.items()} | first
        peers = {call: median_ms(args.repeat, fn) for call, fn in sklearn_calls(table).items()}
        con.close()
        shape = f"{name:16s} {table.num_rows:6d} {table.num_columns - 2:5d}"
        print(f"{shape} {'one-scan floor':22s} {ours.pop('floor'):9.2f}")
        for call, ms in ours.items():
            peer = peers.get(call, ours.get(OWN_PEERS.get(call, ""), TARGETS.get(call)))
            if peer is None:  # no peer, no target: the time alone
                print(f"{shape} {call:22s} {ms:9.2f}")
                continue
            ratios.setdefault(call, []).append(ms / peer)
            print(f"{shape} {call:22s} {ms:9.2f} {peer:9.2f} {ms / peer:6.1f}x")
    print("\nmedian ratio over the data sets (to scikit-learn, our TAN fit or the target):")
    for call, values in ratios.items():
        print(f"  {call:22s} {statistics.median(values):6.1f}x  (max {max(values):.1f}x)")
    every = [ratio for values in ratios.values() for ratio in values]
    print(
        f"  {'every call':22s} {statistics.median(every):6.1f}x  (median over calls and data sets)"
    )
    peer = [ratio for call in SKLEARN_CALLS for ratio in ratios.get(call, [])]
    print(
        f"  {'scikit-learn calls':22s} {statistics.median(peer):6.1f}x  (median over the calls "
        "compared with scikit-learn and the data sets)"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory of the process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
