"""Drift of a wide model against its prediction: the time of ``drift`` over a table relative to
``predict`` over the same table, and the length of the drift statement, in one run.

Run: ``python bench/drift.py [--attributes 100] [--classes 20] [--rows 200]``.

Data: ``--attributes`` numeric columns (normal, shifted by class) and ``--classes`` classes,
``--rows`` rows in an in-memory DuckDB table. A Naive Bayes model is fitted on it (not timed),
then the best of ``--repeat`` runs of ``predict`` and of ``drift`` over the same table
(predict's scoring SQL is compiled once per process, models/scoring/compiled.py; drift builds its
statement, which holds that scoring query, on every call). Printed: seconds of each, drift /
predict, and the drift statement's length per attribute x class (it grows linearly with
attributes x classes).
"""

from __future__ import annotations

import argparse

import duckdb
import numpy as np
import pyarrow as pa
from timing import best_of

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.engines.sources import open_source
from warehouse_ml.sqlgen import templates


def table(rows: int, attributes: int, classes: int, seed: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    labels = np.arange(rows) % classes
    columns = {f"x{i}": rng.normal(labels * 0.1, 1.0, rows) for i in range(attributes)}
    return pa.table({**columns, "y": [f"c{c:03d}" for c in labels]})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attributes", type=int, default=100)
    parser.add_argument("--classes", type=int, default=20)
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    con = duckdb.connect()
    con.register("data_arrow", table(args.rows, args.attributes, args.classes, 1))
    con.execute("CREATE TABLE data AS SELECT * FROM data_arrow")
    model = wml.NaiveBayes().fit(con, "data", "y", name="wide")
    predict = best_of(args.repeat, lambda: model.predict(con, "data"))
    drift = best_of(args.repeat, lambda: model.drift(con, "data"))
    warehouse = connect(con)
    with open_source(warehouse, "data") as source:
        text = templates.generate(model.drift_query(warehouse, model.record, source, 10))
    cells = args.attributes * args.classes
    print(f"{args.attributes} attributes x {args.classes} classes, {args.rows} rows")
    print(f"predict {predict:.2f} s, drift {drift:.2f} s, drift / predict {drift / predict:.2f}")
    print(f"drift statement {len(text) / 1000:.0f} kB, {len(text) / cells:.0f} chars per cell")


if __name__ == "__main__":
    main()
