"""Splits: deterministic, seeded, portable fold and hold-out assignment."""

from __future__ import annotations

import math

import duckdb
import pyarrow as pa
import pytest
import sqlglot

import warehouse_ml as wml
from warehouse_ml.errors import ColumnError, ParameterError
from warehouse_ml.sqlgen import templates


def make_table(n: int = 103, classes: int = 3, string_keys: bool = False) -> pa.Table:
    keys = [f"k{i:05d}" for i in range(n)] if string_keys else list(range(1000, 1000 + n))
    # unbalanced classes: class c gets weight c + 1
    weights = [c + 1 for c in range(classes)]
    labels = []
    for i in range(n):
        r = (i * 7919) % sum(weights)
        c = 0
        while r >= weights[c]:
            r -= weights[c]
            c += 1
        labels.append(f"c{c}")
    return pa.table({"id": keys, "y": labels, "x": [float(i) for i in range(n)]})


def folds_of(con, split) -> dict:
    rows = split.to_arrow(con).to_pylist()
    return {r[split.key]: r["fold"] for r in rows}


def test_folds_partition_rows_exactly(con):
    data = make_table()
    split = wml.assign_folds(con, data, folds=5, seed=7, key="id")
    rows = split.to_arrow(con)
    assert rows.column_names == ["id", "fold"]
    assert sorted(rows.column("id").to_pylist()) == sorted(data.column("id").to_pylist())
    sizes = [rows.column("fold").to_pylist().count(f) for f in range(5)]
    assert sum(sizes) == data.num_rows and max(sizes) - min(sizes) <= 1
    assert split.n_rows == data.num_rows and split.folds == 5


@pytest.mark.parametrize("string_keys", [False, True])
def test_folds_identical_across_runs_and_connections(string_keys):
    data = make_table(string_keys=string_keys)
    results = []
    for _ in range(2):
        connection = duckdb.connect()
        connection.register("data", data)
        connection.execute("CREATE TABLE t AS SELECT * FROM data")
        for _ in range(2):
            results.append(
                folds_of(connection, wml.assign_folds(connection, "t", folds=4, seed=3, key="id"))
            )
        connection.close()
    assert all(r == results[0] for r in results)
    fresh = duckdb.connect()
    other = folds_of(fresh, wml.assign_folds(fresh, data, folds=4, seed=4, key="id"))
    assert other != results[0]


def test_stratified_folds_hold_class_proportions(con):
    data = make_table(n=211)
    k = 6
    split = wml.assign_folds(con, data, folds=k, seed=11, key="id", stratify="y")
    rows = split.to_arrow(con).to_pylist()
    totals = {}
    for r in rows:
        totals[r["y"]] = totals.get(r["y"], 0) + 1
    for label, n_c in totals.items():
        for f in range(k):
            count = sum(1 for r in rows if r["y"] == label and r["fold"] == f)
            assert math.floor(n_c / k) <= count <= math.ceil(n_c / k)
            fold_size = sum(1 for r in rows if r["fold"] == f)
            assert abs(count - n_c * fold_size / len(rows)) < 1 + 1e-9 or abs(count - n_c / k) < 1


@pytest.mark.parametrize("seed", [0, 7])
def test_positions_equal_a_python_ranking(con, seed):
    """Fold ids and hold-out rows equal the documented order computed in Python with hashlib:
    rows ranked by (MD5 of the stratum text, NULL stratum last; MD5 of '<seed>:<repeat>:<key>'),
    k-fold dealing position % k, hold-out taking floor((p+1) f + 1/2) > floor(p f + 1/2)."""
    import hashlib
    import random

    def md5(text: str) -> str:
        return hashlib.md5(text.encode()).hexdigest()

    rng = random.Random(seed)
    keys = rng.sample(range(10**6), 700)
    strata = [rng.choice(["a", "b", None, "c"]) for _ in keys]
    table = pa.table({"id": keys, "s": strata, "x": [float(k) for k in keys]})

    def positions(repeat: int) -> dict[int, int]:
        order = sorted(
            range(len(keys)),
            key=lambda i: (
                (1, "") if strata[i] is None else (0, md5(strata[i])),
                md5(f"{seed}:{repeat}:{keys[i]}"),
            ),
        )
        return {keys[i]: p for p, i in enumerate(order)}

    folds = wml.assign_folds(con, table, folds=4, seed=seed, key="id", stratify="s")
    assert {r["id"]: r["fold"] for r in folds.to_arrow(con).to_pylist()} == {
        k: p % 4 for k, p in positions(0).items()
    }
    holdout = wml.holdout_split(
        con, table, test_fraction=0.3, seed=seed, key="id", target="s", repeats=2,
        keep_columns=True,
    )  # fmt: skip
    rows = holdout.to_arrow(con).to_pylist()
    for repeat in (0, 1):
        expected = {
            k for k, p in positions(repeat).items()
            if math.floor((p + 1) * 0.3 + 0.5) > math.floor(p * 0.3 + 0.5)
        }  # fmt: skip
        assert {r["id"] for r in rows if r["repeat"] == repeat and r["is_test"]} == expected
    assert all(r["x"] == float(r["id"]) for r in rows)  # kept columns joined back by key


def test_leave_one_out_gives_n_folds_of_one_row(con):
    data = make_table(n=37)
    split = wml.leave_one_out(con, data, key="id")
    folds = split.to_arrow(con).column("fold").to_pylist()
    assert split.folds == 37 and sorted(folds) == list(range(37))


@pytest.mark.parametrize("fraction", [1 / 3, 0.25, 0.5, 0.1])
def test_holdout_fraction_and_repeats(con, fraction):
    data = make_table(n=301)
    split = wml.holdout_split(con, data, test_fraction=fraction, seed=5, key="id", repeats=3)
    rows = split.to_arrow(con).to_pylist()
    assert len(rows) == 3 * data.num_rows
    tests = []
    for r in range(3):
        chosen = {row["id"] for row in rows if row["repeat"] == r and row["is_test"]}
        assert len(chosen) == math.floor(data.num_rows * fraction + 0.5)
        tests.append(chosen)
    assert tests[0] != tests[1] != tests[2]


def test_stratified_holdout_within_one_row_per_class(con):
    data = make_table(n=250)
    split = wml.holdout_split(con, data, test_fraction=1 / 3, seed=2, key="id", target="y")
    rows = split.to_arrow(con).to_pylist()
    for label in {r["y"] for r in rows}:
        n_c = sum(1 for r in rows if r["y"] == label)
        n_test = sum(1 for r in rows if r["y"] == label and r["is_test"])
        assert abs(n_test - n_c / 3) < 1


def test_no_key_materialises_row_numbers(con):
    data = make_table(n=20)
    split = wml.assign_folds(con, data, folds=3, seed=1)
    rows = split.to_arrow(con)
    assert split.key == "wml_row"
    assert rows.column_names == ["wml_row", "id", "y", "x", "fold"]
    assert sorted(rows.column("wml_row").to_pylist()) == list(range(1, 21))
    assert sorted(rows.column("id").to_pylist()) == sorted(data.column("id").to_pylist())


def test_keep_columns_and_view(con):
    con.register("data", make_table(n=30))
    con.execute("CREATE TABLE t AS SELECT * FROM data")
    split = wml.assign_folds(
        con, "t", folds=3, seed=1, key="id", table="t_folds", view=True, keep_columns=True
    )
    assert str(split.table) == "main.t_folds"
    assert con.sql("SELECT count(*) AS n FROM t_folds").fetchall()[0][0] == 30
    assert con.sql("SELECT * FROM t_folds").columns == ["id", "y", "x", "fold"]
    again = wml.assign_folds(con, "t", folds=3, seed=1, key="id", table="t_folds2")
    assert folds_of(con, split) == folds_of(con, again)


def test_bad_keys_and_parameters_are_rejected(con):
    data = make_table(n=10)
    with pytest.raises(ColumnError, match="integer or string"):
        wml.assign_folds(con, data, folds=2, key="x")
    dup = pa.table({"id": [1, 1, 2], "y": ["a", "b", "a"]})
    with pytest.raises(ColumnError, match="not unique"):
        wml.assign_folds(con, dup, folds=2, key="id")
    nulls = pa.table({"id": [1, None, 2], "y": ["a", "b", "a"]})
    with pytest.raises(ColumnError, match="NULL"):
        wml.assign_folds(con, nulls, folds=2, key="id")
    with pytest.raises(ParameterError):
        wml.assign_folds(con, data, folds=11, key="id")
    with pytest.raises(ParameterError):
        wml.assign_folds(con, data, folds=1, key="id")
    with pytest.raises(ParameterError):
        wml.holdout_split(con, data, test_fraction=1.0, key="id")
    with pytest.raises(ColumnError):
        wml.assign_folds(con, data, folds=2, key="missing")


def test_split_sql_transpiles_to_postgres_and_spark(con):
    seen = []
    warehouse = wml.connect(con, on_sql=seen.append)
    wml.assign_folds(warehouse, make_table(n=10), folds=2, seed=1, key="id", stratify="y")
    wml.holdout_split(warehouse, make_table(n=10), test_fraction=0.3, seed=1, key="id", repeats=2)
    creates = [s for s in seen if s.startswith("CREATE TABLE") and "IF NOT EXISTS" not in s]
    assert len(creates) == 2
    for sql in creates:
        assert "hash(" not in sql.lower()
        for dialect in ("postgres", "spark"):
            templates.generate(sqlglot.parse_one(sql, read="duckdb"), dialect)
