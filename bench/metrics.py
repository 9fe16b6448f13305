"""Ranking measures benchmark: ROC/AUC and lift in SQL (DuckDB) vs scikit-learn.

Run: ``python bench/metrics.py`` (10M scored rows; ``--rows 1000000`` for a quick run).

Scores are generated in DuckDB (a binary label with 30% positives and a noisy logistic score
rounded to 6 decimals, so there are many ties and about 10^6 distinct scores), stored in a
DuckDB table. Printed, in one run, wall-clock seconds (best of ``--repeat``) of:

* ``warehouse_ml.roc_auc`` (rank-based Mann-Whitney AUC in SQL);
* ``warehouse_ml.lift_table`` (deciles) and ``warehouse_ml.roc_curve`` (all points fetched);
* scikit-learn ``roc_auc_score`` on the same scores, already in numpy arrays (the fetch to
  numpy is reported separately and not charged to scikit-learn);
* the ratio scikit-learn AUC time / SQL AUC time (target: >= 2), and the AUC difference.
"""

from __future__ import annotations

import argparse
import time

import duckdb
import numpy as np
from sklearn.metrics import roc_auc_score

import warehouse_ml as wml

PROBABILITIES = {0: "p0", 1: "p1"}

# Benchmark set-up only (fixed text, no user input): the generator of the scored rows.
GENERATE = """
CREATE TABLE scores AS
WITH raw AS (
    SELECT CASE WHEN random() < 0.3 THEN 1 ELSE 0 END AS y, random() AS u1, random() AS u2
    FROM range(?)
)
SELECT y,
       round(1 / (1 + exp(-(1.2 * (2 * y - 1)
             + sqrt(-2 * ln(greatest(u1, 1e-12))) * cos(2 * pi() * u2)))), 6) AS p1,
       CAST(NULL AS DOUBLE) AS p0
FROM raw
"""


def best_of(repeat: int, fn):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000, help="scored rows (default 10M)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement (best kept)")
    parser.add_argument("--threads", type=int, default=2, help="DuckDB threads")
    args = parser.parse_args()

    con = duckdb.connect(config={"threads": args.threads})
    con.execute("SELECT setseed(0.42)")
    start = time.perf_counter()
    con.execute(GENERATE, [args.rows])
    con.execute("UPDATE scores SET p0 = 1 - p1")
    print(f"rows: {args.rows:,}   generate: {time.perf_counter() - start:.2f} s")
    distinct = con.sql("SELECT count(DISTINCT p1) AS d FROM scores").fetchall()[0][0]
    print(f"distinct scores: {distinct:,}   DuckDB threads: {args.threads}")

    kwargs = {"target": "y", "probabilities": PROBABILITIES}
    t_auc, auc = best_of(args.repeat, lambda: wml.roc_auc(con, "scores", **kwargs))
    t_lift, lift = best_of(args.repeat, lambda: wml.lift_table(con, "scores", **kwargs))
    t_roc, roc = best_of(args.repeat, lambda: wml.roc_curve(con, "scores", **kwargs))

    start = time.perf_counter()
    arrays = con.sql("SELECT y, p1 FROM scores").fetchnumpy()
    y, p = np.asarray(arrays["y"]), np.asarray(arrays["p1"])
    t_fetch = time.perf_counter() - start
    t_sk, sk_auc = best_of(args.repeat, lambda: roc_auc_score(y, p))

    print(f"SQL roc_auc            {t_auc:8.2f} s   auc = {auc.auc:.12f}")
    print(
        f"SQL lift_table (10)    {t_lift:8.2f} s   top-decile lift = {lift['lift'][0].as_py():.4f}"
    )
    print(f"SQL roc_curve          {t_roc:8.2f} s   points = {roc.num_rows:,}")
    print(f"fetch to numpy         {t_fetch:8.2f} s   (not charged to scikit-learn)")
    print(f"sklearn roc_auc_score  {t_sk:8.2f} s   auc = {sk_auc:.12f}")
    print(f"ratio sklearn / SQL AUC: {t_sk / t_auc:.2f}x (target >= 2x)")
    print(f"ratio sklearn / SQL (AUC + lift): {t_sk / (t_auc + t_lift):.2f}x")
    print(f"|AUC difference|: {abs(auc.auc - sk_auc):.2e}")


if __name__ == "__main__":
    main()
