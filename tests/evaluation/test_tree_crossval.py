"""A decision tree's cross-validation grows every fold's tree in the same statements
(DecisionTree declares FoldsAtOnce: tree_growth.grow over the fold column, one count statement
per level for every fold's open nodes) and equals fitting each fold from scratch.

The oracle is independent of that path: for each fold f, ``wml.DecisionTree`` is fitted on
``SELECT * FROM folds WHERE fold <> f`` (the same fold assignment, a real scan of the training
rows) and scores fold f. Each fold's tree must be the scratch fit's: the same nodes, splits
(attribute, kind, threshold, branch values, NULL and unseen branches), training counts and bin
edges exactly, gains and probabilities to 1e-12; and the pooled out-of-fold probabilities those
of the scratch model on its held-out rows (1e-12). The level count statements of the
cross-validation are as many as the deepest fold's fit has, not the folds' sum.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import warehouse_ml as wml
from warehouse_ml.evaluation import splits
from warehouse_ml.models.learners.tree import decision_tree
from warehouse_ml.models.learners.tree import growth as tree_growth
from warehouse_ml.models.learners.tree import scoring as tree_scoring
from warehouse_ml.models.learners.tree.model import Node
from warehouse_ml.models.learners.tree.state import TreeState

TOLERANCE = 1e-12
FOLDS = 3
FEATURES = ["colour", "shape", "x", "z"]


def data(n: int = 360, seed: int = 5) -> pa.Table:
    """Two text attributes (NULLs, a rare value), two numbers (NULLs, ties), a class of three
    values depending on all of them with noise, an integer weight and a key."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey"], n).astype(object)
    colour[rng.random(n) < 0.1] = None
    colour[rng.choice(n, 2, replace=False)] = "rare"
    shape = rng.choice(["round", "square", "flat"], n).astype(object)
    x = np.round(rng.normal(size=n), 1)
    z = rng.normal(size=n)
    score = (x > 0.2) * 1.0 + (colour == "red") - (z < -0.5) + (shape == "flat") * 0.5
    y = np.where(score > 0.8, "hi", np.where(score < 0.1, "lo", "mid"))
    y = np.where(rng.random(n) < 0.15, rng.choice(["hi", "lo", "mid"], n), y)
    x_values = pa.array(x, pa.float64(), mask=rng.random(n) < 0.1)
    return pa.table({
        "id": np.arange(n), "colour": colour.tolist(), "shape": shape.tolist(), "x": x_values,
        "z": z, "w": rng.integers(1, 4, n), "y": y.tolist(),
    })  # fmt: skip


class Spy:
    """Records the trees every learn_tables call returns, and how many level count statements
    each call ran (tree_growth.level_query, one per level here: the attributes are one
    chunk)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.learned: list[TreeState] = []
        self.levels: list[int] = []
        learn = decision_tree.DecisionTree.learn_tables
        level_query = tree_growth.level_query

        def learn_tables(model, warehouse, training, tables, check):
            self.levels.append(0)
            state = learn(model, warehouse, training, tables, check)
            self.learned.append(state)
            return state

        def counted(*args: Any, **kwargs: Any):
            self.levels[-1] += 1
            return level_query(*args, **kwargs)

        monkeypatch.setattr(decision_tree.DecisionTree, "learn_tables", learn_tables)
        monkeypatch.setattr(tree_growth, "level_query", counted)


def assert_same_tree(got: Node, want: Node) -> None:
    """The same node, split and subtree: ids, depths, counts, split tests exactly; gains to
    TOLERANCE."""
    assert (got.id, got.depth, got.counts) == (want.id, want.depth, want.counts)
    assert (got.split is None) == (want.split is None)
    if got.split is not None:
        a, b = got.split, want.split
        assert (a.attribute, a.kind, a.threshold, a.values, a.null, a.other) == (
            b.attribute, b.kind, b.threshold, b.values, b.null, b.other,
        )  # fmt: skip
        np.testing.assert_allclose([a.gain, a.score], [b.gain, b.score], rtol=0, atol=TOLERANCE)
    assert len(got.children) == len(want.children)
    for g, w in zip(got.children, want.children, strict=True):
        assert_same_tree(g, w)


SETTINGS = [
    ({"splits": "multiway", "criterion": "entropy", "bins": 8, "pruning": "none"}, None),
    ({"splits": "binary", "criterion": "gini", "bins": None, "pruning": "none"}, None),
    ({"splits": "multiway", "criterion": "gain_ratio", "bins": 16, "pruning": "pessimistic",
      "max_leaf_nodes": 12, "min_samples_split": 12}, "w"),
    ({"splits": "binary", "criterion": "entropy", "bins": 6, "pruning": "reduced_error",
      "key": "id"}, None),
    ({"splits": "binary", "criterion": "gain_ratio", "bins": None, "pruning": "pessimistic",
      "alpha": 0.5}, None),
    ({"splits": "multiway", "criterion": "gini", "bins": 5, "pruning": "reduced_error",
      "key": "id", "min_leaf": 3}, "w"),
]  # fmt: skip


@pytest.mark.parametrize("walked", [False, True], ids=["case", "walk"])
@pytest.mark.parametrize(("options", "weight"), SETTINGS)
def test_cross_validation_equals_fitting_each_fold(con, monkeypatch, options, weight, walked):
    if walked:  # every tree scored by a walk of its node table, not its nested CASE
        monkeypatch.setattr(tree_scoring, "LITERAL_LEAVES", 0)
    con.register("rows", data())
    con.execute("CREATE TABLE t AS SELECT * FROM rows")
    model = wml.DecisionTree(**options)
    spy = Spy(monkeypatch)
    pooled = wml.cross_validate(
        con, "t", "y", model, folds=FOLDS, seed=3, key="id", features=FEATURES,
        sample_weight=weight,
    ).to_arrow().sort_by("id")  # fmt: skip
    (folded,) = spy.learned
    (cv_levels,) = spy.levels
    assert len(folded.partition_trees) == FOLDS
    table = splits.assign_folds(
        con, "t", folds=FOLDS, seed=3, key="id", stratify="y", keep_columns=True
    ).table
    for f, tree in enumerate(folded.partition_trees):
        train = con.sql(f"SELECT * EXCLUDE (fold) FROM {table} WHERE fold <> {f}").to_arrow_table()
        held = con.sql(f"SELECT * FROM {table} WHERE fold = {f} ORDER BY id").to_arrow_table()
        scratch = wml.DecisionTree(**options).fit(
            con, train, "y", features=FEATURES, sample_weight=weight, name=f"f{f}"
        )
        want = spy.learned[-1]
        assert_same_tree(tree.root, want.root)
        assert tree.edges == want.edges
        assert tree.probabilities.keys() == want.probabilities.keys()
        for node, p in want.probabilities.items():
            np.testing.assert_allclose(tree.probabilities[node], p, rtol=0, atol=TOLERANCE)
        got = pooled.filter(pc.equal(pooled["fold"], f))
        assert got["id"].to_pylist() == held["id"].to_pylist()
        expected = scratch.predict_proba(con, held)
        for column in expected.column_names:
            np.testing.assert_allclose(
                got[column].to_numpy(), expected[column].to_numpy(), rtol=0, atol=TOLERANCE
            )
    fold_levels = spy.levels[1:]
    assert cv_levels == max(fold_levels)  # the deepest fold's levels, not every fold's
    assert sum(fold_levels) > cv_levels
