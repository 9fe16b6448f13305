"""Categorical counts in blocks (warehouse_ml/stats/counting.py) against counts made by pyarrow:
every attribute's (value, class) rows, per partition and weighted, and one GROUP BY per block
for its marginals (a GROUP BY per attribute made the statement plan for longer than it
counted on small tables)."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import duckdb
import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats import counting

N = 300
ATTRIBUTES = [f"a{i}" for i in range(7)] + ['odd "name"']


def _data() -> pa.Table:
    rng = np.random.default_rng(7)
    columns: dict[str, pa.Array] = {}
    for i, name in enumerate(ATTRIBUTES):
        values = rng.integers(0, 2 + i % 4, N)
        if i % 2:  # text, with NULLs
            columns[name] = pa.array([None if v == 0 else f"v{v}" for v in values])
        else:
            columns[name] = pa.array(values.astype(np.int64))
    columns["y"] = pa.array([None if i % 37 == 0 else f"c{i % 3}" for i in range(N)])
    columns["fold"] = pa.array(np.arange(N) % 4)
    columns["w"] = pa.array(rng.integers(1, 5, N) / 4)
    return pa.table(columns)


def _reference(data: pa.Table, weighted: bool) -> Counter:
    """(part, attribute, value as text, class) -> rows (or summed weights) of non-NULL cells."""
    rows = data.to_pylist()
    counts: Counter = Counter()
    for row in rows:
        if row["y"] is None:
            continue
        for name in ATTRIBUTES:
            if row[name] is not None:
                key = (row["fold"], name, str(row[name]), row["y"])
                counts[key] += Decimal(str(row["w"])) if weighted else 1
    return counts


def test_counts_per_partition_and_weighted_equal_pyarrow_counts():
    con = duckdb.connect()
    data = _data()
    con.register("data", data)
    con.execute("CREATE TABLE t AS SELECT * FROM data")
    source = TableName(("t",)).to_table()
    for weight in (None, "w"):
        query = counting.categorical_counts(
            source, "y", ATTRIBUTES, block_size=3, partition="fold", weight=weight
        )
        got = {
            (r[0], r[1], r[2], r[3]): r[4]
            for r in con.execute(templates.generate(query)).fetchall()
        }
        assert got == dict(_reference(data, weight is not None))


def test_a_blocks_marginals_are_one_group_by():
    query = counting.categorical_counts(TableName(("t",)).to_table(), "y", ATTRIBUTES, 3)
    blocks = len(counting.blocks(ATTRIBUTES, 3))
    assert blocks == 3
    # per block: its joint counts, then every attribute's marginal out of them
    assert len(list(query.find_all(exp.Group))) == 2 * blocks
