"""Which fit may replace a model of its name (store/catalog.py ``refuse_replacing``): a re-fit
of the same kind, target and source does (its views rebuilt); a fit of another kind, target or
source only with ``replace=True``; the selection helpers fit under names of their own
(``select_model_<target>``, ``select_k_<target>``) and replace only a model they made."""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from conftest import FIXTURES

import warehouse_ml as wml
from warehouse_ml.cli import main

TENNIS = str(FIXTURES / "play_tennis.csv")


def rows(n: int, seed: int) -> pa.Table:
    """A key, a text and a number attribute, two classes."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "colour": pa.array([f"v{(v + rng.integers(0, 2)) % 3}" for v in y]),
            "size": pa.array(y * 1.5 + rng.normal(size=n)),
            "y": pa.array([("no", "yes")[v] for v in y]),
        }
    )


@pytest.fixture
def tables(con) -> duckdb.DuckDBPyConnection:
    for name, seed in (("train", 1), ("sample", 2), ("other", 3)):
        con.register(f"{name}_rows", rows(120, seed))
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM {name}_rows")
    return con


def probabilities(model, con, source) -> np.ndarray:
    return np.column_stack([c.to_numpy() for c in model.predict_proba(con, source).columns])


def test_select_k_leaves_the_users_model_and_its_view_alone(tables):
    """select_k re-fitted under the default ``k_nearest_neighbors_<target>``: the user's view
    then served select_k's model of the sample and the user's handle was stale."""
    con = tables
    mine = wml.KNearestNeighbors(k=3).fit(con, "train", "y", keys=["id"])
    view = mine.create_view(con, "mine_scores", "other", keys=["id"])
    expected = probabilities(mine, con, "other")
    chosen = wml.select_k(con, "sample", "y", [1, 9], key="id", folds=3)
    assert chosen.model.name_ == "select_k_y" and mine.name_ == "k_nearest_neighbors_y"
    np.testing.assert_array_equal(probabilities(mine, con, "other"), expected)  # not stale
    served = con.sql(f"SELECT p_no, p_yes FROM {view} ORDER BY id").fetchnumpy()
    np.testing.assert_array_equal(np.column_stack([served["p_no"], served["p_yes"]]), expected)
    assert wml.load(con, "k_nearest_neighbors_y").get_params()["k"] == 3


def test_select_model_leaves_the_users_model_alone(tables):
    con = tables
    mine = wml.NaiveBayes().fit(con, "train", "y", keys=["id"])
    expected = probabilities(mine, con, "other")
    best = wml.select_model(
        con, "sample", "y", [wml.NaiveBayes(alpha=a) for a in (1, 2)], folds=3, key="id"
    )
    assert best.model.name_ == "select_model_y" and mine.name_ == "naive_bayes_y"
    np.testing.assert_array_equal(probabilities(mine, con, "other"), expected)


@pytest.mark.parametrize("helper", ["select_model", "select_k"])
def test_a_helper_replaces_only_a_model_it_made(tables, helper):
    """Run again (on other data, choosing another kind), a helper replaces its own model;
    under the name of a model it did not make it refuses before anything runs."""
    con = tables

    def run(source: str, **options):
        if helper == "select_k":
            return wml.select_k(con, source, "y", [1, 5], folds=3, key="id", **options)
        candidates = [wml.NaiveBayes(), wml.KNearestNeighbors()]
        return wml.select_model(con, source, "y", candidates, folds=3, key="id", **options)

    first = run("sample")
    again = run("other")
    assert again.model.name_ == first.model.name_ == f"{helper}_y"
    assert wml.load(con, again.model.name_).record.source == "other"
    mine = wml.TAN().fit(con, "train", "y", keys=["id"], name="mine")
    statements: list[str] = []
    con_spy = wml.connect(con, on_sql=statements.append)
    with pytest.raises(wml.NameConflictError, match=f"'mine' already exists.*{helper} replaces"):
        if helper == "select_k":
            wml.select_k(con_spy, "other", "y", [1, 5], folds=3, key="id", name="mine")
        else:
            wml.select_model(con_spy, "other", "y", [wml.NaiveBayes()], folds=3, name="mine")
    assert not any(s.lstrip().upper().startswith("CREATE") for s in statements)
    assert wml.load(con, "mine").record.model_id == mine.record.model_id


@pytest.mark.parametrize(
    "change",
    [
        {"source": "other"},
        {"model": wml.LogisticRegression()},
        {"target": "colour", "features": ["size"]},
    ],
    ids=["source", "kind", "target"],
)
def test_a_fit_replaces_a_model_of_another_source_kind_or_target_only_when_told(tables, change):
    con = tables
    first = wml.NaiveBayes().fit(con, "train", "y", features=["colour", "size"], name="m")
    model = change.get("model", wml.NaiveBayes())
    source, target = change.get("source", "train"), change.get("target", "y")
    features = change.get("features", ["colour", "size"])
    with pytest.raises(wml.NameConflictError) as refused:
        model.fit(con, source, target, features=features, name="m")
    message = str(refused.value)
    assert "model 'm' already exists: a naive_bayes model of target 'y' trained on train" in (
        message
    )
    assert "replace=True" in message
    assert wml.load(con, "m").record.model_id == first.record.model_id
    np.testing.assert_array_equal(
        probabilities(first, con, "other"), probabilities(wml.load(con, "m"), con, "other")
    )
    replaced = model.fit(con, source, target, features=features, name="m", replace=True)
    assert wml.load(con, "m").record.model_id == replaced.record.model_id


def test_a_refit_of_the_same_source_target_and_kind_replaces_its_model(tables):
    con = tables
    first = wml.NaiveBayes().fit(con, "train", "y", keys=["id"])
    view = first.create_view(con, "scores", "other", keys=["id"])
    again = wml.NaiveBayes(alpha=3.0).fit(con, "train", "y", keys=["id"])
    assert again.name_ == first.name_ == "naive_bayes_y"
    served = con.sql(f"SELECT p_no, p_yes FROM {view} ORDER BY id").fetchnumpy()
    np.testing.assert_array_equal(
        np.column_stack([served["p_no"], served["p_yes"]]), probabilities(again, con, "other")
    )


def test_the_cli_follows_the_same_rule(tmp_path, capsys):
    """train re-fits the same source, target and kind without --replace; another kind under
    the name needs --replace, the message in the command line's spelling."""
    db = str(tmp_path / "w.duckdb")
    train = ["train", TENNIS, "--target", "play", "--keys", "day", "--db", db, "--name", "t"]
    assert main(train) == 0
    assert main([*train, "--alpha", "2"]) == 0
    capsys.readouterr()
    assert main([*train, "--kind", "tan"]) == 1
    err = capsys.readouterr().err
    assert "model 't' already exists: a naive_bayes model" in err
    assert "--replace" in err and "another --name" in err and "replace=True" not in err
    assert main([*train, "--kind", "tan", "--replace"]) == 0
    with duckdb.connect(db) as con:
        assert wml.load(con, "t").kind == "tan"
