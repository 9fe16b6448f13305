"""Decision tree: fit, 10-fold cross-validation and scoring through the view, against
scikit-learn's DecisionTreeClassifier on the same rows in the same run (a script, not a test).

    python bench/tree.py                      # 1M rows x 20 attributes, max_depth 10
    python bench/tree.py --rows 200000 --folds 5

The data (seeded): ten text attributes of 3 to 12 values and ten float attributes, a binary
class from a rule over six of them with 10% of labels flipped, and an integer key ``id``; an
in-memory DuckDB table ``t``.

* fit: ``DecisionTree(splits="binary", criterion="gini", pruning="none", max_depth=10)`` (CART,
  as the peer; ``--default`` for the default C4.5 settings, whose multiway splits of the text
  attributes grow many more nodes) against scikit-learn's ``DecisionTreeClassifier(max_depth=
  10)`` on the same rows read from DuckDB, the text columns encoded by ``OrdinalEncoder``
  (reading and encoding included in its time);
* cross-validation: ``wml.cross_validate(..., folds=k)`` against the fit (target: within 10x);
* scoring: the prediction view's probabilities read into Arrow against scikit-learn's read,
  encode and ``predict_proba`` (target: the view at least 3x faster), and the view's statement
  alone (one sum, nothing fetched); it says whether the tree scores by its nested CASE or walks
  its node table (models/learners/tree/scoring.py);
* the process's peak resident memory at the end.

Prints seconds and the ratios; asserts nothing.
"""

from __future__ import annotations

import argparse
import resource
import time

import duckdb
import numpy as np
import pyarrow as pa
from sklearn.preprocessing import OrdinalEncoder
from sklearn.tree import DecisionTreeClassifier

import warehouse_ml as wml

TEXT = [f"t{i}" for i in range(10)]
NUMBERS = [f"x{i}" for i in range(10)]


def sample(n: int, seed: int = 0) -> pa.Table:
    """The benchmark table (module docstring)."""
    rng = np.random.default_rng(seed)
    text = {
        name: np.char.add("v", rng.integers(0, 3 + i, n).astype(str)) for i, name in enumerate(TEXT)
    }
    numbers = {name: rng.normal(size=n) for name in NUMBERS}
    rule = (
        (text["t0"] == "v1")
        | ((numbers["x0"] > 0.3) & (text["t1"] != "v2"))
        | ((numbers["x1"] + numbers["x2"] > 1.0) & (text["t2"] == "v0"))
    )
    y = np.where(rng.random(n) < 0.1, ~rule, rule).astype(np.int64)
    return pa.table({"id": np.arange(n), **text, **numbers, "y": y})


def timed(run) -> tuple[float, object]:
    start = time.perf_counter()
    result = run()
    return time.perf_counter() - start, result


def peer_fit(con: duckdb.DuckDBPyConnection) -> tuple[OrdinalEncoder, DecisionTreeClassifier]:
    frame = con.sql("SELECT * FROM t").fetchnumpy()
    encoder = OrdinalEncoder()
    codes = encoder.fit_transform(np.column_stack([frame[c] for c in TEXT]))
    x = np.column_stack([codes, *[frame[c] for c in NUMBERS]])
    tree = DecisionTreeClassifier(max_depth=10, random_state=0).fit(x, frame["y"])
    return encoder, tree


def peer_scores(con, encoder: OrdinalEncoder, tree: DecisionTreeClassifier) -> np.ndarray:
    frame = con.sql("SELECT * FROM t").fetchnumpy()
    codes = encoder.transform(np.column_stack([frame[c] for c in TEXT]))
    return tree.predict_proba(np.column_stack([codes, *[frame[c] for c in NUMBERS]]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--max-depth", type=int, default=10)
    parser.add_argument("--default", action="store_true", help="the default C4.5 settings")
    args = parser.parse_args()
    con = duckdb.connect()
    con.register("rows", sample(args.rows))
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    con.unregister("rows")
    features = [*TEXT, *NUMBERS]

    cart = {"splits": "binary", "criterion": "gini", "pruning": "none"}
    model = wml.DecisionTree(max_depth=args.max_depth, **({} if args.default else cart))
    fit, _ = timed(lambda: model.fit(con, "t", "y", features=features, name="tree"))
    peer, (encoder, tree) = timed(lambda: peer_fit(con))
    learned = model.record.state.learned
    print(f"rows {args.rows}, attributes {len(features)}, {model!r}")
    print(f"fit: {fit:.2f} s ({learned.leaves} leaves, depth {learned.depth}); "
          f"scikit-learn read + encode + fit {peer:.2f} s ({tree.get_n_leaves()} leaves); "
          f"ratio {fit / peer:.2f} (target <= 1)")  # fmt: skip

    cv, _ = timed(
        lambda: wml.cross_validate(
            con, "t", "y", model, folds=args.folds, key="id", features=features
        )
    )
    print(f"{args.folds}-fold cross-validation: {cv:.2f} s, {cv / fit:.1f}x one fit (target <= 10)")

    view = model.create_view(con, "tree_scores", "t", keys=["id"])
    names = [f'"{c}"' for c in model.probability_columns(con).values()]
    columns = ", ".join(names)
    scored, _ = timed(lambda: con.sql(f"SELECT id, {columns} FROM {view}").to_arrow_table())
    statement, _ = timed(lambda: con.execute(f"SELECT SUM({names[0]}) FROM {view}").fetchall())
    walked = "node table" if "wml_level_1" in model.sql(con, "t") else "nested CASE"
    peer_scored, _ = timed(lambda: peer_scores(con, encoder, tree))
    print(f"scoring through the view ({walked}): {scored:.2f} s into Arrow, of which the "
          f"statement alone {statement:.2f} s; scikit-learn read + encode + predict_proba "
          f"{peer_scored:.2f} s; speed-up {peer_scored / scored:.1f}x (target >= 3)")  # fmt: skip
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory of the process: {peak:.0f} MB")


if __name__ == "__main__":
    main()
