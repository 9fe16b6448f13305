"""A fitted decision tree past tree_scoring.LITERAL_LEAVES leaves (set low here, so that a quick
fit grows one) scores through its node table,
one join per level (models/learners/tree/scoring.py): the same probabilities as its nested CASE
to 1e-15 (rows with NULLs and values the tree never saw included), through predict_proba, a
prediction view, a reloaded model and the exported SQL; the SQL parses in every dialect."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import sqlglot
from reference import tree_path
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.models.learners.tree import scoring as tree_scoring
from warehouse_ml.models.scoring.query import score_query
from warehouse_ml.models.scoring.scores import ClassProbabilities
from warehouse_ml.sqlgen import templates

DIALECTS = ["duckdb", "postgres", "spark", "bigquery", "snowflake", "tsql", "mysql", "trino"]


def rows(n: int, seed: int, unseen: bool = False) -> pa.Table:
    """Numbers, a text of 12 values and an integer code (both with NULLs), three classes from
    a noisy rule; ``unseen``: text values and codes the training rows never had."""
    rng = np.random.default_rng(seed)
    x, z = rng.normal(size=n), rng.normal(size=n)
    x[rng.random(n) < 0.05] = np.nan
    top = 16 if unseen else 12
    text = np.array([f"w{v}" for v in rng.integers(0, top, n)], dtype=object)
    text[rng.random(n) < 0.08] = None
    code = rng.integers(0, 8 if unseen else 6, n).astype(object)
    code[rng.random(n) < 0.05] = None
    y = np.where(np.nan_to_num(x) + 0.5 * z > 0.2, "a", "b")
    y = np.where(np.isin(text, ["w1", "w4", "w7"]), "c", y)
    y = np.where(rng.random(n) < 0.25, rng.choice(["a", "b", "c"], n), y)
    return pa.table(
        {"id": np.arange(n), "x": pa.array(x, from_pandas=True), "z": z,
         "text": pa.array(text.tolist(), pa.string()),
         "code": pa.array(code.tolist(), pa.int64()), "y": y}
    )  # fmt: skip


def case_scores(con, model, table: str) -> pa.Table:
    """The model's probabilities and predictions of ``table``'s rows by its nested CASE
    (tree_scoring.class_probabilities), by id."""
    scores = ClassProbabilities(tree_scoring.class_probabilities(model.record))
    query = score_query(
        exp.to_table(table), scores, model.classes_, passthrough=[("id", "id")],
        probability_names=[f"p_{c}" for c in model.classes_],
    )  # fmt: skip
    return con.sql(templates.generate(query, "duckdb")).to_arrow_table().sort_by("id")


def walked_in_python(model, table: pa.Table) -> np.ndarray:
    """Each row's leaf probabilities by a walk of the stored tree in Python (reference.tree_path;
    the code compared as text, as fitted), renormalised."""
    learned = model.tree_
    out = []
    for row in table.to_pylist():
        values = {k: (None if v is None else str(v)) for k, v in row.items()}
        values.update(x=row["x"], z=row["z"])
        leaf = np.array(learned.probabilities[tree_path(learned.root, values)[-1].id])
        out.append(leaf / leaf.sum())
    return np.array(out)


def matrix(table: pa.Table) -> np.ndarray:
    return np.column_stack([table[f"p_{c}"].to_numpy() for c in "abc"])


@pytest.mark.parametrize(
    "settings",
    [
        {"splits": "binary", "criterion": "gini", "bins": None},
        {"splits": "multiway", "criterion": "gain_ratio", "bins": 8, "alpha": 1.0},
    ],
)
def test_a_large_tree_walks_its_node_table_to_the_case_probabilities(con, monkeypatch, settings):
    monkeypatch.setattr(tree_scoring, "LITERAL_LEAVES", 8)  # a small tree to walk: a quick fit
    con.register("train", rows(300, 1))
    con.execute("CREATE TABLE train_rows AS SELECT * FROM train")
    scored = rows(400, 2, unseen=True)
    con.register("scored", scored)
    model = wml.DecisionTree(pruning="none", min_leaf=1, max_depth=6, **settings).fit(
        con, "train_rows", "y", features=["x", "z", "text", "code"], categorical=["code"],
        name="big",
    )  # fmt: skip
    assert model.tree_.leaves > tree_scoring.LITERAL_LEAVES
    assert model.tree_.depth >= 5
    sql = model.sql(con, "train_rows", keys=["id"])
    assert "wml_level_1" in sql

    walked = matrix(model.predict_proba(con, scored))
    np.testing.assert_allclose(
        walked, matrix(case_scores(con, model, "scored")), rtol=0, atol=1e-15
    )
    np.testing.assert_allclose(walked, walked_in_python(model, scored), rtol=0, atol=1e-15)
    reloaded = wml.load(con, "big").predict_proba(con, scored)
    np.testing.assert_allclose(matrix(reloaded), walked, rtol=0, atol=1e-15)

    expected = case_scores(con, model, "train_rows")
    view = model.create_view(con, "big_scores", "train_rows", keys=["id"])
    through_view = con.sql(f"SELECT * FROM {view} ORDER BY id").to_arrow_table()
    exported = con.sql(sql).to_arrow_table().sort_by("id")
    for got in (through_view, exported):
        np.testing.assert_allclose(matrix(got), matrix(expected), rtol=0, atol=1e-15)
        assert got["prediction"].to_pylist() == expected["prediction"].to_pylist()
    for dialect in DIALECTS:
        sqlglot.parse_one(model.sql(con, "train_rows", keys=["id"], dialect=dialect), dialect)
