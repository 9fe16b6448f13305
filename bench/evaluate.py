"""Cross-validation benchmark: 10-fold CV of Naive Bayes and TAN vs the time of one fit.

Run: ``python bench/evaluate.py`` (1M rows x 20 categorical attributes; ``--rows`` to change).
ROC/AUC and lift over 10M scored rows vs scikit-learn are measured by ``bench/metrics.py``.

Printed, in one run (best of ``--repeat``): one fit, k-fold cross-validation (fold assignment,
per-fold parameters, pooled out-of-fold predictions) and their ratio (target: CV <= 3x one fit,
where k re-trainings would cost about k x), the fold assignment alone, a cross-validation that
reuses that assignment (``folds=split``, as select_model does for its candidates), Naive Bayes
exact leave-one-out (n folds, one scoring query) against one fit, plus the process's peak
memory.
"""

from __future__ import annotations

import argparse
import resource

import duckdb
import pyarrow as pa
from timing import best_of

import warehouse_ml as wml
from warehouse_ml.sqlgen import templates

KINDS = {"naive_bayes": wml.NaiveBayes, "tan": wml.TAN}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--attributes", type=int, default=20)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--kinds",
        nargs="+",
        choices=sorted(KINDS),
        default=sorted(KINDS),
        help="model kinds to measure (default both; leave-one-out needs naive_bayes)",
    )
    args = parser.parse_args()

    con = duckdb.connect()
    data = wml.synthetic.tan_data(
        args.rows, args.attributes, n_classes=2, concentration=2.0, seed=2
    )
    data = data.append_column("id", pa.array(range(args.rows)))
    con.register("data", data)
    wml.connect(con).run_tree(
        templates.create_table_as(
            templates.TableName(("t",)),
            templates.build("select_all", source=templates.TableName(("data",))),
        )
    )
    print(
        f"data: {args.rows:,} rows x {args.attributes} categorical attributes, {args.folds}-fold CV"
    )
    fits = {}
    for kind in (KINDS[k] for k in sorted(KINDS) if k in args.kinds):
        fit = best_of(args.repeat, lambda k=kind: k().fit(con, "t", "class", keys=["id"], name="b"))
        fits[kind] = fit
        evaluations = []
        seconds = best_of(
            args.repeat,
            lambda k=kind, out=evaluations: out.append(
                wml.cross_validate(con, "t", "class", k(), folds=args.folds, key="id")
            ),
        )
        accuracy = evaluations[-1].accuracy().accuracy
        print(
            f"{kind.__name__:10s} one fit {fit:7.3f} s   {args.folds}-fold CV {seconds:7.3f} s   "
            f"CV / fit = {seconds / fit:5.2f}x   (CV accuracy {accuracy:.4f})"
        )
    # the part of each CV that is not learning: MD5-ranked stratified fold table, every column
    splits = []
    assignment = best_of(
        args.repeat,
        lambda: splits.append(
            wml.assign_folds(
                con, "t", folds=args.folds, key="id", stratify="class", keep_columns=True,
                table="bench_folds",
            )
        ),
    )  # fmt: skip
    print(
        f"fold assignment alone (stratified, all columns kept) {assignment:7.3f} s = "
        + "   ".join(f"{assignment / fit:5.2f}x {k.__name__} fit" for k, fit in fits.items())
    )
    for kind, fit in fits.items():  # further CVs on that assignment (folds=split)
        seconds = best_of(
            args.repeat,
            lambda k=kind: wml.cross_validate(con, "t", "class", k(), folds=splits[-1]),
        )
        print(
            f"{kind.__name__:10s} one fit {fit:7.3f} s   CV on the assigned folds {seconds:7.3f} s"
            f"   = {seconds / fit:5.2f}x"
        )
    if wml.NaiveBayes not in fits:
        return
    loo = []  # exact leave-one-out of Naive Bayes: one count scan + one scoring query
    seconds = best_of(
        args.repeat,
        lambda: loo.append(
            wml.cross_validate_leave_one_out(con, "t", "class", wml.NaiveBayes(), key="id")
        ),
    )
    print(
        f"{'NaiveBayes':10s} one fit {fits[wml.NaiveBayes]:7.3f} s   leave-one-out {seconds:7.3f} s   "
        f"LOO / fit = {seconds / fits[wml.NaiveBayes]:5.2f}x   (LOO accuracy "
        f"{loo[-1].accuracy().accuracy:.4f})"
    )
    print(
        f"peak RSS of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
    )


if __name__ == "__main__":
    main()
