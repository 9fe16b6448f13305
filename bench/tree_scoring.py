"""Decision tree scoring: the nested CASE against the walk of the node table (one join per
level), by the number of leaves, on DuckDB and PostgreSQL (a script, not a test): what
tree_scoring.LITERAL_LEAVES is chosen by.

    python bench/tree_scoring.py                          # DuckDB, 1M rows
    python bench/tree_scoring.py --postgres "host=... dbname=..." --rows 200000

For each size, a seeded random tree over the rows of bench/tree.py (binary splits: thresholds
on the ten numbers, value subsets of the ten texts; leaves split at random until the size is
reached, so depths are uneven as in grown trees), three classes with random leaf
probabilities. Both queries are the library's scoring query over the same tree
(models/scoring/query.py); the times are planning (EXPLAIN) and the run with every
probability fetched (DuckDB: into Arrow; PostgreSQL: a count over the query, no transfer),
the best of two runs each. Prints one line per size; asserts nothing but that both give the
same probabilities.
"""

from __future__ import annotations

import argparse
import os
import time

import duckdb
import numpy as np
from sqlglot import exp
from tree import NUMBERS, TEXT, sample

from warehouse_ml.engines import connect
from warehouse_ml.models.learners.tree import scoring as tree_scoring
from warehouse_ml.models.learners.tree.model import Node, Split, node_probabilities, route
from warehouse_ml.models.scoring.query import score_query
from warehouse_ml.models.scoring.scores import ClassProbabilities, Scores
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import TableName, column, literal

CLASSES = ["a", "b", "c"]


def random_tree(leaves: int, seed: int) -> Node:
    """A tree of ``leaves`` leaves (module docstring)."""
    rng = np.random.default_rng(seed)
    root = Node(0, 0, [float(c) for c in rng.integers(1, 50, len(CLASSES))])
    open_leaves, next_id = [root], 1
    while len(open_leaves) < leaves:
        node = open_leaves.pop(int(rng.integers(len(open_leaves))))
        i = int(rng.integers(10))
        if rng.random() < 0.5:
            split = Split(NUMBERS[i], "threshold", float(rng.normal()), (), int(rng.integers(2)),
                          int(rng.integers(2)), 0.1, 0.1)  # fmt: skip
        else:
            values = [f"v{v}" for v in range(3 + i)]
            left = tuple(sorted(rng.choice(values, len(values) // 2, replace=False).tolist()))
            right = tuple(v for v in values if v not in left)
            split = Split(TEXT[i], "subset", None, (left, right), int(rng.integers(2)),
                          int(rng.integers(2)), 0.1, 0.1)  # fmt: skip
        node.split = split
        for _ in range(2):
            counts = [float(c) for c in rng.integers(1, 50, len(CLASSES))]
            node.children.append(Node(next_id, node.depth + 1, counts))
            next_id += 1
        open_leaves.extend(node.children)
    return root


def value_of(split: Split) -> exp.Expression:
    as_value = expressions.as_double if split.kind == "threshold" else expressions.as_text
    return as_value(column(split.attribute, "s"))


def queries(con, dialect: str, root: Node) -> dict[str, str]:
    """The CASE and the walk scoring queries of ``root`` over table ``t`` (routes and nodes
    tables created here)."""
    probabilities = node_probabilities(root, 0.0)
    warehouse = connect(con)
    for table in ("bench_routes", "bench_nodes"):
        warehouse.run("drop_table", table=TableName((table,)))
    tree_scoring.write_routes(warehouse, TableName(("bench_routes",)), [root], [*TEXT, *NUMBERS])
    leaves = [
        (0, n.id, True, i, p) for n in root.leaves() for i, p in enumerate(probabilities[n.id])
    ]
    warehouse.run_tree(
        templates.create_table_as(
            TableName(("bench_nodes",)),
            exp.select("*").from_(
                templates.values(
                    leaves, "v", ("wml_part", "node", "leaf", "class_index", "leaf_probability")
                )
            ),
        )
    )
    k = len(CLASSES)
    scores: dict[str, Scores] = {
        "case": ClassProbabilities(
            [route(root, value_of, lambda n, c=c: literal(probabilities[n.id][c])) for c in range(k)]
        ),
        "walk": tree_scoring.walked_probabilities(
            [root], [*TEXT, *NUMBERS], k, TableName(("bench_routes",)), TableName(("bench_nodes",)),
            value_of,
        ),
    }  # fmt: skip
    return {
        name: templates.generate(
            score_query(
                exp.to_table("t"), s, CLASSES, passthrough=[("id", "id")],
                probability_names=[f"p_{c}" for c in CLASSES], prediction_name=None,
                materialized=dialect == "postgres",
            ),
            dialect,
        )
        for name, s in scores.items()
    }  # fmt: skip


def best_of_two(run) -> float:
    times = []
    for _ in range(2):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def measure(con, engine: str, sql: str) -> tuple[float, float, object]:
    """Planning and run time of ``sql`` (module docstring) and its result: DuckDB's rows by id
    as Arrow, PostgreSQL's count and sum of p_a."""
    if engine == "duckdb":
        plan = best_of_two(lambda: con.execute(f"EXPLAIN {sql}").fetchall())
        run = best_of_two(lambda: con.sql(sql).to_arrow_table())
        return plan, run, con.sql(sql).to_arrow_table().sort_by("id")
    counted = f"SELECT COUNT(*), SUM(p_a) FROM ({sql}) AS q"
    with con.cursor() as cursor:
        plan = best_of_two(lambda: cursor.execute(f"EXPLAIN {sql}"))
        run = best_of_two(lambda: cursor.execute(counted).fetchall())
        return plan, run, cursor.execute(counted).fetchall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--leaves", type=int, nargs="+", default=[16, 64, 256, 1024, 4096])
    parser.add_argument("--postgres", help="a libpq connection string: measure PostgreSQL too")
    args = parser.parse_args()
    engines = {"duckdb": duckdb.connect()}
    if args.postgres:
        import psycopg

        engines["postgres"] = psycopg.connect(args.postgres, autocommit=True)
    data = sample(args.rows)
    for con in engines.values():
        warehouse = connect(con)
        warehouse.run("drop_table", table=TableName(("t",)))
        registered = warehouse.register_arrow(data)
        warehouse.run_tree(
            templates.create_table_as(
                TableName(("t",)), templates.build("select_all", source=registered)
            )
        )
        warehouse.unregister(registered)
    print(f"rows {args.rows}; load average {os.getloadavg()[0]:.1f}")
    for leaves in args.leaves:
        root = random_tree(leaves, leaves)
        depth = max(n.depth for n in root.walk())
        for name, con in engines.items():
            text = queries(con, "postgres" if name == "postgres" else "duckdb", root)
            line = [f"{name} {leaves} leaves (depth {depth}):"]
            results = {}
            for kind, sql in text.items():
                plan, run, results[kind] = measure(con, name, sql)
                line.append(f"{kind} plan {plan:.3f} s run {run:.2f} s;")
            if name == "duckdb":
                case, walk = (
                    np.column_stack([r[f"p_{c}"].to_numpy() for c in CLASSES])
                    for r in results.values()
                )
                assert np.array_equal(case, walk)
            else:
                assert results["case"][0][0] == results["walk"][0][0]
                assert abs(results["case"][0][1] - results["walk"][0][1]) < 1e-6
            print(" ".join(line), flush=True)


if __name__ == "__main__":
    main()
