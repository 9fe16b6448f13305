"""Reduced-error pruning of a decision tree (models/learners/tree/pruning.py) against a
reference written here from Quinlan's rule: the same rows held out by the MD5 of the key, the
tree grown without pruning on the others, then pruned bottom up in Python wherever a node as a
leaf makes no more errors on the held-out rows than its pruned subtree."""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pytest
import sqlglot
from reference import tree_path

import warehouse_ml as wml
from warehouse_ml.engines import session
from warehouse_ml.engines.sources import open_source
from warehouse_ml.errors import ColumnError, NotSupportedError, ParameterError
from warehouse_ml.models.learners.tree.model import Node
from warehouse_ml.models.members import WeightedMembers
from warehouse_ml.models.training import Training, class_counts
from warehouse_ml.stats.features import CATEGORICAL, NUMERIC, Feature
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store import ownership
from warehouse_ml.store.ownership import Staging


def noisy(n: int, seed: int) -> pa.Table:
    """A class from a rule over two attributes with 25% of labels flipped, NULLs included."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["r", "g", "b", "w"], n).astype(object)
    colour[rng.random(n) < 0.05] = None
    size = np.round(rng.normal(size=n), 2)
    rule = (colour == "r") | (size > 0.5)
    y = np.where(rng.random(n) < 0.25, ~rule, rule)
    return pa.table({
        "id": np.arange(n) * 7 + 3, "colour": list(colour), "size": size,
        "noise": rng.choice(["p", "q", "s"], n), "y": np.where(y, "yes", "no"),
    })  # fmt: skip


def held_out(key, fraction: float) -> bool:
    """The documented rule: the first 8 hex digits of MD5(key as text) below fraction * 2^32."""
    return int(hashlib.md5(str(key).encode()).hexdigest()[:8], 16) < int(fraction * 2**32)


def reference_prune(node: Node, rows: list[dict], labels: list[str], inherited: int = 0) -> int:
    """Prune ``node`` in place by the held-out ``rows`` that reach it; returns its errors."""
    k = len(labels)
    label = inherited if sum(node.counts) <= 0 else int(np.argmax(node.counts))
    reached = [0] * k
    for r in rows:
        reached[labels.index(r["y"])] += 1
    as_leaf = sum(reached) - reached[label]
    if node.split is None:
        return as_leaf
    by_child: list[list[dict]] = [[] for _ in node.children]
    for r in rows:
        child = tree_path(node, r)[1]
        by_child[[c.id for c in node.children].index(child.id)].append(r)
    errors = sum(
        reference_prune(c, rs, labels, label) for c, rs in zip(node.children, by_child, strict=True)
    )
    if as_leaf <= errors:
        node.split, node.children = None, []
        return as_leaf
    return errors


@pytest.mark.parametrize(("criterion", "fraction"), [("entropy", 1 / 3), ("gini", 0.5)])
def test_reduced_error_pruning_equals_the_reference(con, criterion, fraction):
    table = noisy(900, 3)
    settings = {"criterion": criterion, "splits": "binary", "min_leaf": 1, "bins": None}
    features = ["colour", "size", "noise"]
    pruned = wml.DecisionTree(
        pruning="reduced_error", key="id", prune_fraction=fraction, **settings
    ).fit(con, table, "y", features=features, name="rep")
    rows = table.to_pylist()
    held = [r for r in rows if held_out(r["id"], fraction)]
    growing = pa.Table.from_pylist([r for r in rows if not held_out(r["id"], fraction)])
    assert 0 < len(held) < len(rows)
    grown = wml.DecisionTree(pruning="none", **settings).fit(
        con, growing, "y", features=features, name="grown"
    )
    root = Node.from_json(grown.record.state.learned.root.to_json())
    before = sum(1 for _ in root.walk())
    reference_prune(root, held, ["no", "yes"])
    assert pruned.record.state.learned.root.to_json() == root.to_json()
    assert sum(1 for _ in root.walk()) < before  # the noise made something to prune


def test_reduced_error_pruning_needs_a_key(con):
    with pytest.raises(ParameterError, match="key"):
        wml.DecisionTree(pruning="reduced_error")
    model = wml.DecisionTree(pruning="reduced_error", key="row_id")
    with pytest.raises(ColumnError, match="row_id"):
        model.fit(con, noisy(50, 0), "y", features=["colour", "size"])


def with_keys(n: int = 400) -> pa.Table:
    """noisy rows with candidate keys: constant, two-valued, DOUBLE, with a NULL, repeated."""
    table = noisy(n, 5)
    ids = table["id"].to_numpy()
    extra = {
        "constant": np.full(n, 7), "two": ids % 2, "as_double": ids.astype(float),
        "with_null": [None, *ids[1:].tolist()], "repeated": [int(ids[0]), *ids[:-1].tolist()],
    }  # fmt: skip
    for name, values in extra.items():
        table = table.append_column(name, pa.array(values))
    return table


@pytest.mark.parametrize(
    ("key", "features", "message"),
    [
        ("constant", None, "is not unique: 400 rows, 1 distinct keys"),
        ("two", None, "is not unique: 400 rows, 2 distinct keys"),
        ("repeated", None, "is not unique: 400 rows, 399 distinct keys"),
        ("with_null", None, "is NULL in 1 of 400 rows"),
        ("as_double", None, "has type double; expected an integer or string key"),
        ("y", None, "is the target"),
        ("noise", ["colour", "size", "noise"], "is also a feature"),
    ],
)
def test_reduced_error_pruning_refuses_a_key_that_cannot_hold_rows_out(con, key, features, message):
    """Each of these held out all rows or none (a one-leaf tree, training accuracy 0.53
    instead of 0.9) or by engine-dependent text; the key rule of stats/keys.py refuses them
    before any count, as the SVM's Platt folds and cross-validation do."""
    model = wml.DecisionTree(pruning="reduced_error", key=key)
    features = features or ["colour", "size", "noise"]
    with pytest.raises(ColumnError, match=rf"key column '{key}' of .*{message}.*reduced-error"):
        model.fit(con, with_keys(), "y", features=features)


def test_the_key_is_no_feature_by_default_and_cross_validation_refuses_bad_keys(con):
    table = with_keys()
    rows = table.select(["id", "colour", "size", "noise", "y"])
    model = wml.DecisionTree(pruning="reduced_error", key="id").fit(con, rows, "y")
    assert "id" not in model.feature_names_in_ and "colour" in model.feature_names_in_
    plain = wml.DecisionTree(pruning="reduced_error", key="id")
    for key, message in (("y", "is the target"), ("two", "is not unique"),
                         ("as_double", "has type double")):  # fmt: skip
        with pytest.raises(ColumnError, match=rf"key column '{key}' of .*{message}"):
            wml.cross_validate(con, table, "y", plain, folds=3, key=key,
                               features=["colour", "size"])  # fmt: skip
    with pytest.raises(ColumnError, match=r"key column 'noise' of .* is also a feature"):
        wml.cross_validate(con, table, "y", plain, folds=3, key="noise",
                           features=["colour", "noise"])  # fmt: skip


def test_members_of_their_own_weights_are_refused_with_reduced_error_pruning(con):
    """Reduced-error pruning counts its held-out rows per fold, so a tree pruned so learns no
    members of their own row weights at once: a NotSupportedError naming the capability,
    before any statement (models/capabilities.py: require_learnable)."""
    con.register("rows", noisy(120, 3))
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    model = wml.DecisionTree(pruning="reduced_error", key="id")
    with session(con) as warehouse, open_source(warehouse, "t") as src:
        classes, _ = class_counts(warehouse, src, "y")
        features = [Feature("colour", CATEGORICAL, "VARCHAR"), Feature("size", NUMERIC, "DOUBLE")]
        weights = (sqlglot.parse_one("src.id % 2"), sqlglot.parse_one("1 + src.id % 3"))
        training = Training(src, "y", features, [classes] * 2, members=WeightedMembers(weights))
        with Staging(
            warehouse, owner_kind="model", owner="m", created_by="test", version="v",
            lifetime=ownership.MODEL,
        ) as tables:  # fmt: skip
            statements = len(warehouse.log)
            with pytest.raises(
                NotSupportedError, match="MembersAtOnce; model kind 'decision_tree'"
            ):
                model.learn_tables(
                    warehouse, training, tables, CardinalityCheck("t", features, 120)
                )
            assert len(warehouse.log) == statements
