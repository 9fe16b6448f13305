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
import pytest
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.progress import Progress
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


def _coded_data() -> pa.Table:
    """Integer codes of every width and sign, with NULLs, an integer class with NULLs, a text
    class, folds and weights; one code's range too wide to pack with the others."""
    rng = np.random.default_rng(11)
    n = 400

    def codes(low: int, high: int, arrow_type: pa.DataType, nulls: bool = True) -> pa.Array:
        values = rng.integers(low, high + 1, n)
        return pa.array(
            [None if nulls and i % 9 == v % 5 else int(v) for i, v in enumerate(values)],
            type=arrow_type,
        )

    return pa.table(
        {
            "tiny": codes(-100, 27, pa.int8()),  # offsets x multipliers overflow an int8
            "small": codes(1, 4, pa.uint16()),
            "big": codes(2**40, 2**40 + 3, pa.int64()),  # beyond INTEGER: not cast
            "plain": codes(0, 2, pa.int32(), nulls=False),
            "wide": codes(-(2**30), 2**30, pa.int64()),  # its slots exceed MAX_PACKED_KEY
            "text": pa.array([None if i % 7 == 0 else f"t{i % 3}" for i in range(n)]),
            "y": codes(-1, 1, pa.int16()),
            "label": pa.array([f"c{i % 3}" for i in range(n)]),
            "fold": pa.array(np.arange(n) % 3),
            "w": pa.array(rng.integers(1, 5, n) / 4),
        }
    )


def test_packed_codes_count_as_the_plain_blocks_do():
    """A block's integer codes grouped as one packed key (with the class when it is a code)
    give the counts of the plain block query, per partition and weighted, whatever the codes'
    widths, signs and NULLs; a code whose slots would take the key past MAX_PACKED_KEY, and a
    text column, stay columns of their own."""
    con = duckdb.connect()
    data = _coded_data()
    con.register("data", data)
    con.execute("CREATE TABLE t AS SELECT * FROM data")
    source = TableName(("t",)).to_table()
    attributes = ["tiny", "small", "big", "wide", "text", "plain"]
    coded = [a for a in attributes if a != "text"]
    for target in ("y", "label"):
        names = [target, *coded] if target == "y" else coded
        row = con.execute(
            "SELECT " + ", ".join(f'MIN("{c}"), MAX("{c}")' for c in names) + " FROM t"
        ).fetchone()
        codes = {c: (row[2 * i], row[2 * i + 1]) for i, c in enumerate(names)}
        for partition, weight in ((None, None), ("fold", "w")):
            plain, packed = (
                counting.categorical_counts(
                    source, target, attributes, 4, partition, weight, codes=given
                )
                for given in (None, codes)
            )
            assert "wml_key" in packed.sql() and "wml_key" not in plain.sql()
            assert '"wide" AS "a' in packed.sql(), "the wide code stays a column"
            got, plain_got = (
                sorted(con.execute(templates.generate(q)).fetchall()) for q in (packed, plain)
            )
            assert got == plain_got
            expected = _python_counts(data, target, attributes, partition, weight)
            assert {tuple(r[:4]): r[4] for r in got} == expected and len(got) > 40


def _python_counts(
    data: pa.Table, target: str, attributes: list[str], partition: str | None, weight: str | None
) -> dict:
    """(part, attribute, value as text, class as text) -> rows (or summed weights) of the
    non-NULL cells of rows with a class."""
    counts: Counter = Counter()
    for row in data.to_pylist():
        if row[target] is None:
            continue
        for name in attributes:
            if row[name] is not None:
                key = (0 if partition is None else row[partition], name, str(row[name]))
                counts[(*key, str(row[target]))] += (
                    1 if weight is None else Decimal(str(row[weight]))
                )
    return dict(counts)


def test_a_code_written_outside_its_range_while_counted_refuses_the_fit():
    """Naive Bayes packs its integer codes by their ranges read before counting: a row written
    to the source meanwhile with a code outside them (which the packed key would count as
    another value) makes the fit a SourceError naming the column, the model of that name left
    as it was."""
    con = duckdb.connect()
    con.execute(
        "CREATE TABLE t AS SELECT i % 3 AS a, i % 4 AS b, i % 2 AS y FROM range(200) AS r(i)"
    )
    wml.NaiveBayes().fit(con, "t", "y", name="m")
    before = wml.load(con, "m").predict_proba(con, "t")
    writer = con.cursor()

    def write(progress: Progress) -> None:
        if progress.phase.startswith("create_nb_categorical"):
            writer.execute("INSERT INTO t VALUES (7, 1, 0)")

    with pytest.raises(wml.SourceError, match="column 'a' of t held values from 0 to 2"):
        wml.NaiveBayes().fit(con, "t", "y", name="m", progress=write)
    assert wml.load(con, "m").n_rows_ == 200
    assert wml.load(con, "m").predict_proba(con, "t").slice(0, 200).equals(before)
