"""Resampling: the rows a deterministic MD5 under- or over-sample keeps, checked against a
hashlib reference of the same rule, and the resample as a guest (owned, replaceable, dropped)."""

from __future__ import annotations

import hashlib
from collections import Counter

import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.errors import (
    ColumnConflictError,
    ColumnError,
    NameConflictError,
    ParameterError,
)


def imbalanced(n: int = 300, seed: int = 2) -> pa.Table:
    rng = np.random.default_rng(seed)
    labels = rng.choice(["rare", "mid", "common"], size=n, p=[0.1, 0.3, 0.6]).tolist()
    labels[5] = None
    return pa.table(
        {
            "id": [f"r{i:04d}" for i in range(n)],
            "label": labels,
            "x": rng.integers(0, 4, n),
        }
    )


def reference(table: pa.Table, strategy: str, ratio: float, seed: int) -> Counter:
    """How many times each key appears, from the documented rule: each class's rows in order
    of MD5('<seed>:0:<key>') hex; under: the first int(n_min / r); over: every row
    floor(q / n) times and the first q mod n once more, q = int(n_max * r)."""
    by_class: dict[str, list[str]] = {}
    for key, label in zip(table["id"].to_pylist(), table["label"].to_pylist(), strict=True):
        if label is not None:
            by_class.setdefault(label, []).append(key)
    sizes = [len(v) for v in by_class.values()]
    appearances: Counter = Counter()
    for keys in by_class.values():
        keys.sort(key=lambda k: hashlib.md5(f"{seed}:0:{k}".encode()).hexdigest())
        n = len(keys)
        if strategy == "under":
            quota = min(n, int(min(sizes) / ratio))
        else:
            quota = max(n, int(max(sizes) * ratio))
        for rank, key in enumerate(keys, start=1):
            appearances[key] = quota // n + (rank <= quota % n)
    return +appearances


@pytest.mark.parametrize(
    "strategy, ratio, seed",
    [("under", 1.0, 0), ("under", 0.5, 9), ("over", 1.0, 4), ("over", 0.7, 1)],
)
def test_rows_follow_the_md5_rule(con, strategy, ratio, seed):
    data = imbalanced()
    sample = wml.resample(con, data, "label", strategy=strategy, ratio=ratio, seed=seed, key="id")
    rows = sample.to_arrow(con)
    assert rows.column_names == ["id", "label", "x", "copy"]
    expected = reference(data, strategy, ratio, seed)
    assert Counter(rows["id"].to_pylist()) == expected
    # each appearance of a key is numbered 0, 1, ... and carries the row's own values
    source = {r["id"]: r for r in data.to_pylist()}
    for r in rows.to_pylist():
        assert r["copy"] < expected[r["id"]]
        assert (r["label"], r["x"]) == (source[r["id"]]["label"], source[r["id"]]["x"])
    assert len({(r["id"], r["copy"]) for r in rows.to_pylist()}) == rows.num_rows
    assert sample.after == dict(Counter(rows["label"].to_pylist()))
    assert sample.before == dict(Counter(v for v in data["label"].to_pylist() if v is not None))


def test_balanced_counts_and_binary_ratio_convention(con):
    """Two classes: the minority over the majority after resampling is the ratio (rounded
    down as imbalanced-learn's sampling_strategy counts)."""
    data = pa.table({"id": list(range(90)), "label": ["a"] * 20 + ["b"] * 70})
    under = wml.resample(con, data, "label", ratio=0.3, key="id")
    assert under.after == {"a": 20, "b": int(20 / 0.3)}
    over = wml.resample(con, data, "label", strategy="over", ratio=0.5, key="id")
    assert over.after == {"a": 35, "b": 70}
    balanced = wml.resample(con, data, "label", strategy="over", key="id")
    assert balanced.after == {"a": 70, "b": 70}


def test_seed_changes_the_draw_and_repeats_are_identical(con):
    data = imbalanced()
    first = wml.resample(con, data, "label", seed=1, key="id").to_arrow(con)
    again = wml.resample(con, data, "label", seed=1, key="id").to_arrow(con)
    other = wml.resample(con, data, "label", seed=2, key="id").to_arrow(con)
    assert first.equals(again)
    assert first["id"].to_pylist() != other["id"].to_pylist()


def test_without_a_key_rows_are_numbered_and_materialised(con):
    data = imbalanced().drop_columns(["id"])
    sample = wml.resample(con, data, "label", strategy="over")
    rows = sample.to_arrow(con)
    assert rows.column_names == ["wml_row", "label", "x", "copy"]
    assert sample.key == "wml_row"
    assert Counter(rows["label"].to_pylist()) == Counter(sample.after)
    with pytest.raises(ParameterError, match="needs a key"):
        wml.resample(con, data, "label", view=True)


def test_a_view_over_a_table_follows_it(con):
    con.register("data_arrow", imbalanced())
    con.execute("CREATE TABLE data AS SELECT * FROM data_arrow")
    sample = wml.resample(con, "data", "label", key="id", view=True, table="balanced")
    kinds = wml.list_objects(con).to_pylist()
    assert [(o["object_name"], o["object_kind"], o["owner_kind"]) for o in kinds] == [
        ("main.balanced", "view", "sample")
    ]
    assert con.execute("SELECT COUNT(*) FROM balanced").fetchone()[0] == sum(sample.after.values())


def test_a_resample_fits_with_its_key_and_copy_as_keys(con):
    sample = wml.resample(con, imbalanced(), "label", strategy="over", key="id")
    model = wml.NaiveBayes().fit(con, sample.table, "label", keys=["id", "copy"])
    assert [f.name for f in model.features_] == ["x"]
    assert model.n_rows_ == sum(sample.after.values())


def test_guest_contract(con):
    data = imbalanced()
    con.execute("CREATE TABLE mine (a INTEGER)")
    with pytest.raises(NameConflictError, match="not created by warehouse-ml"):
        wml.resample(con, data, "label", key="id", table="mine")
    first = wml.resample(con, data, "label", key="id", table="sampled")
    second = wml.resample(con, data, "label", key="id", table="sampled", strategy="over")
    assert con.execute("SELECT COUNT(*) FROM sampled").fetchone()[0] == sum(second.after.values())
    assert wml.list_objects(con).num_rows == 1
    first.drop(con)  # its name now holds the second resample's rows, which it does not own
    assert wml.list_objects(con).num_rows == 1
    second.drop(con)
    assert wml.list_objects(con).num_rows == 0
    assert con.execute("SELECT COUNT(*) FROM mine").fetchone()[0] == 0
    with pytest.raises(ColumnConflictError, match="'copy'"):
        wml.resample(con, data.append_column("Copy", data["x"]), "label", key="id")


@pytest.mark.parametrize(
    "arguments, message",
    [
        ({"strategy": "smote"}, "strategy must be one of"),
        ({"ratio": 0}, r"ratio must be a number in \(0, 1\]"),
        ({"ratio": 1.5}, r"ratio must be a number in \(0, 1\]"),
        ({"ratio": True}, "ratio must be"),
        ({"seed": 1.5}, "seed must be an integer"),
    ],
)
def test_bad_arguments_are_refused(con, arguments, message):
    with pytest.raises(ParameterError, match=message):
        wml.resample(con, imbalanced(), "label", key="id", **arguments)


def test_too_many_copies_are_refused(con):
    data = pa.table({"id": list(range(20_002)), "label": ["a"] + ["b"] * 20_001})
    with pytest.raises(ParameterError, match="repeats a row 20001 times"):
        wml.resample(con, data, "label", strategy="over", key="id")


@pytest.mark.parametrize("strategy", ["under", "over"])
@pytest.mark.parametrize(
    "keys, message",
    [
        (lambda ids: [ids[0], *ids[:-1]], r"key column 'id' of .* is not unique: 300 rows, 299"),
        (lambda ids: [None, *ids[1:]], r"key column 'id' of .* is NULL in 1 of 300 rows"),
    ],
)
def test_keys_a_split_refuses_are_refused(con, strategy, keys, message):
    data = imbalanced()
    data = data.set_column(0, "id", pa.array(keys(data["id"].to_pylist()), pa.string()))
    with pytest.raises(ColumnError, match=message):
        wml.assign_folds(con, data, folds=3, key="id")
    with pytest.raises(ColumnError, match=message):
        wml.resample(con, data, "label", key="id", strategy=strategy)
    assert wml.list_objects(con).num_rows == 0


@pytest.mark.parametrize("view", [False, True])
@pytest.mark.parametrize("strategy, ratio", [("under", 1.0), ("under", 0.4), ("over", 0.8)])
def test_reported_counts_are_those_of_the_written_rows(con, strategy, ratio, view):
    con.register("data_arrow", imbalanced())
    con.execute("CREATE TABLE data AS SELECT * FROM data_arrow")
    sample = wml.resample(con, "data", "label", key="id", strategy=strategy, ratio=ratio, view=view)
    written = con.execute(f"SELECT label, COUNT(*) FROM {sample.table} GROUP BY label").fetchall()
    assert sample.after == dict(written)
    labels = [v for v in imbalanced()["label"].to_pylist() if v is not None]
    assert sample.before == dict(Counter(labels))
