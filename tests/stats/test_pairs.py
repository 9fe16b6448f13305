"""Pair counts and (conditional) mutual information in SQL against a numpy reference."""

from __future__ import annotations

import itertools
import math
import warnings

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

import warehouse_ml as wml
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats import pairs


def _table(con: duckdb.DuckDBPyConnection, model: wml.TAN, part: str) -> pa.Table:
    """One parameter table of a fitted model, rows in a fixed order."""
    table = model.record.table(part)
    warehouse = wml.connect(con)
    names = warehouse.schema_of(table).names
    return warehouse.fetch(
        "select_table", table=table, order_columns=[templates.column(n, "t") for n in names]
    )


def _random_table(seed: int, n: int = 400, d: int = 5, null_rate: float = 0.1) -> pa.Table:
    rng = np.random.default_rng(seed)
    columns: dict[str, pa.Array] = {}
    cards = [2, 3, 4, 3, 5, 2, 3][:d]
    base = rng.integers(0, 3, n)
    for i, card in enumerate(cards):
        # mix in the class-like base so that pairs are dependent
        values = (base * (i + 1) + rng.integers(0, card, n)) % card
        mask = rng.random(n) < null_rate
        columns[f"x{i}"] = pa.array(
            [None if m else f"v{v}" for v, m in zip(values, mask, strict=True)], pa.string()
        )
    labels = (base + rng.integers(0, 2, n)) % 3
    mask = rng.random(n) < 0.03
    columns["y"] = pa.array([None if m else int(v) for v, m in zip(labels, mask, strict=True)])
    return pa.table(columns)


def _reference(xi: list, xj: list, c: list) -> tuple[float, float]:
    """CMI(Xi;Xj|C) and MI(Xi;Xj) in bits over rows where xi, xj and c are non-NULL."""
    rows = [(a, b, k) for a, b, k in zip(xi, xj, c, strict=True) if None not in (a, b, k)]
    if not rows:
        return 0.0, 0.0
    va = sorted({r[0] for r in rows})
    vb = sorted({r[1] for r in rows})
    vc = sorted({r[2] for r in rows})
    counts = np.zeros((len(va), len(vb), len(vc)))
    for a, b, k in rows:
        counts[va.index(a), vb.index(b), vc.index(k)] += 1
    p = counts / counts.sum()
    p_c = p.sum(axis=(0, 1))
    p_ac = p.sum(axis=1)
    p_bc = p.sum(axis=0)
    cmi = 0.0
    for a, b, k in zip(*np.nonzero(p), strict=True):
        cmi += p[a, b, k] * math.log2(p[a, b, k] * p_c[k] / (p_ac[a, k] * p_bc[b, k]))
    q = p.sum(axis=2)
    q_a, q_b = q.sum(axis=1), q.sum(axis=0)
    mi = 0.0
    for a, b in zip(*np.nonzero(q), strict=True):
        mi += q[a, b] * math.log2(q[a, b] / (q_a[a] * q_b[b]))
    return cmi, mi


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_cmi_and_mi_equal_numpy_reference(seed: int) -> None:
    data = _random_table(seed)
    con = duckdb.connect()
    model = wml.TAN(alpha=0.5).fit(con, data, "y")
    names = [f"x{i}" for i in range(5)]
    y = data["y"].to_pylist()
    for a, b in itertools.combinations(names, 2):
        cmi, mi = _reference(data[a].to_pylist(), data[b].to_pylist(), y)
        assert model.cmi_[(a, b)] == pytest.approx(cmi, abs=1e-12)
        assert model.mi_[(a, b)] == pytest.approx(mi, abs=1e-12)


def test_pair_counts_table_matches_pandas() -> None:
    data = _random_table(7, d=6)
    con = duckdb.connect()
    model = wml.TAN().fit(con, data, "y")
    counts = _table(con, model, "pair_counts").to_pandas()
    frame = data.to_pandas()
    names = [f"x{i}" for i in range(6)]
    assert len(counts.groupby(["attribute_i", "attribute_j"])) == 15
    for a, b in itertools.combinations(names, 2):
        sub = frame.dropna(subset=[a, b, "y"])
        expected = sub.groupby([a, b, "y"]).size()
        got = counts[(counts.attribute_i == a) & (counts.attribute_j == b)]
        classes = {i: v for i, v in enumerate(model.classes_)}
        got_map = {(r.value_i, r.value_j, classes[r.class_index]): r.n for r in got.itertuples()}
        assert got_map == {(k[0], k[1], int(k[2])): v for k, v in expected.items()}
        assert got.n.sum() == len(sub)


def test_chow_liu_mi_matches_reference_and_tree() -> None:
    data = _random_table(3, d=4).drop_columns(["y"])
    con = duckdb.connect()
    tree = wml.chow_liu_tree(con, data)
    names = [f"x{i}" for i in range(4)]
    ones = [1] * data.num_rows
    matrix = np.zeros((4, 4))
    for (i, a), (j, b) in itertools.combinations(enumerate(names), 2):
        _, mi = _reference(data[a].to_pylist(), data[b].to_pylist(), ones)
        assert tree.mi[(a, b)] == pytest.approx(mi, abs=1e-12)
        matrix[i, j] = matrix[j, i] = mi
    from warehouse_ml.stats.spanning_tree import maximum_spanning_tree

    expected = {frozenset((names[i], names[j])) for i, j in maximum_spanning_tree(matrix)}
    assert tree.undirected_edges == expected
    assert tree.root == "x0"
    arrow = tree.to_arrow()
    assert arrow.column_names == ["parent", "child", "mi"] and arrow.num_rows == 3
    assert wml.chow_liu_tree(con, data, columns=names[:3], root="x2").root == "x2"
    assert "graph TD" in tree.to_text()


def test_chow_liu_leaves_out_keys_and_warns_on_a_column_unique_per_row() -> None:
    data = _random_table(3, d=4).drop_columns(["y"])
    keyed = data.append_column("customer_id", pa.array(np.arange(data.num_rows) * 7 + 3))
    con = duckdb.connect()
    with pytest.warns(wml.HighCardinalityWarning, match=r"'customer_id' .* keys=\['customer_id'\]"):
        naive = wml.chow_liu_tree(con, keyed)
    assert "customer_id" in naive.attributes  # it wins the tree: MI(id; x) = H(x)
    assert all("customer_id" in edge for edge in naive.undirected_edges)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        told = wml.chow_liu_tree(con, keyed, keys=["customer_id"])
    assert told == wml.chow_liu_tree(con, data)
    with pytest.raises(wml.ColumnError, match=r"'customer_id' .* is one of the keys"):
        wml.chow_liu_tree(con, keyed, columns=["x0", "customer_id"], keys=["customer_id"])
    with pytest.raises(wml.ColumnError, match="key 'id' is not a column"):
        wml.chow_liu_tree(con, keyed, keys=["id"])


def test_chow_liu_bins_numeric_columns() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=2000)
    data = pa.table({"x": x, "y": x + rng.normal(scale=0.1, size=2000), "z": rng.normal(size=2000)})
    tree = wml.chow_liu_tree(duckdb.connect(), data, bins=4)
    assert frozenset(("x", "y")) in tree.undirected_edges
    assert tree.mi[("x", "y")] > 1.0 > tree.mi[("x", "z")]


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(st.integers(1, 40), min_size=0, max_size=12),
    st.integers(2, 6),
    st.integers(1, 4),
)
def test_blocks_cover_every_pair(cards: list[int], size: int, n_classes: int) -> None:
    blocks = pairs.plan_pair_blocks(cards, n_classes=n_classes, max_size=size, max_cells=4096)
    covered = {p for block in blocks for p in itertools.combinations(block, 2)}
    assert covered == set(itertools.combinations(range(len(cards)), 2))
    assert all(2 <= len(b) <= size and b == sorted(b) for b in blocks)
    assert blocks == pairs.plan_pair_blocks(
        cards, n_classes=n_classes, max_size=size, max_cells=4096
    )


def test_blocks_are_few_for_small_cardinalities() -> None:
    blocks = pairs.plan_pair_blocks([3] * 20, n_classes=2)
    assert len(blocks) < 40  # vs 190 pairs: each scan covers several pairs


def test_information_sql_uses_ln_only() -> None:
    sql = templates.generate(pairs.information_query(TableName(("wml", "x_pair_counts")))).upper()
    assert "LN(" in sql and "LOG(" not in sql and "LOG2" not in sql and "LOG10" not in sql
    query = pairs.pair_counts_query(TableName(("t",)).to_table(), "y", ["a", "b", "c"], [[0, 1, 2]])
    text = templates.generate(query)
    assert text.count("GROUP BY") == 2  # one block scan, one pass summing its three pairs
    for dialect in ("postgres", "spark"):
        templates.generate(query, dialect)


@pytest.mark.parametrize("blocks", [None, [[0, 1], [0, 2], [0, 3], [1, 2, 3]]])
def test_pair_counts_per_partition_equal_python_counts_of_each_partition(blocks) -> None:
    """With a partition column, one query gives each partition's pair counts: every non-zero
    (partition, Ai, Aj, value_i, value_j, class) cell, counted here in plain Python over the rows
    where both attributes and the class are non-NULL."""
    data = _random_table(seed=9, n=300, d=4)
    part = [i * 7 % 5 for i in range(data.num_rows)]
    data = data.append_column("part", pa.array(part, pa.int32()))
    names = [f"x{i}" for i in range(4)]
    con = duckdb.connect()
    con.register("data", data)
    plan = blocks or pairs.plan_pair_blocks([2, 3, 4, 3], n_classes=15, max_size=3)
    query = pairs.pair_counts_query(
        TableName(("data",)).to_table(), "y", names, plan, partition="part"
    )
    got = {
        (r["wml_part"], r["attribute_i"], r["attribute_j"], r["value_i"], r["value_j"],
         r["class_label"]): r["n"]
        for r in wml.connect(con).fetch_tree(query).to_pylist()
    }  # fmt: skip
    columns = data.to_pydict()
    expected: dict[tuple, int] = {}
    for i, j in itertools.combinations(range(4), 2):
        for p, a, b, c in zip(
            part, columns[names[i]], columns[names[j]], columns["y"], strict=True
        ):
            if None not in (a, b, c):
                cell = (p, names[i], names[j], a, b, str(c))
                expected[cell] = expected.get(cell, 0) + 1
    assert got == expected
