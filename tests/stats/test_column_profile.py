"""A column without any value (stats/column_profile.py): chosen from every column, it is left
out with one AllNullColumnsWarning naming it, in fit, cross_validate and select_model alike;
named in features=[...], or all the features there are, it is a DataError. The values are
counted by the statement that reads the integer columns' ranges, not by a scan of their own."""

from __future__ import annotations

import warnings

import duckdb
import numpy as np
import pytest
from conftest import FIXTURES

import warehouse_ml as wml
from warehouse_ml.cli import main
from warehouse_ml.engines import connect
from warehouse_ml.engines.sources import open_source
from warehouse_ml.stats.integer_rule import choose_features

N = 90


@pytest.fixture
def table(con) -> str:
    """``colour`` (text), ``code`` (an integer with 40 values), ``size`` (double), two columns
    without a value (``blank`` VARCHAR, ``gap`` DOUBLE) and the class ``y``; keyed by ``id``."""
    con.execute(
        f"CREATE TABLE t AS SELECT i AS id, 'v' || (i % 3) AS colour, i % 40 AS code, "
        f"i * 0.25 AS size, CAST(NULL AS VARCHAR) AS blank, CAST(NULL AS DOUBLE) AS gap, "
        f"CASE WHEN i % 3 = 0 OR i % 7 = 0 THEN 'yes' ELSE 'no' END AS y FROM range({N}) r(i)"
    )
    return "t"


WITH_VALUES = ["colour", "code", "size"]


def probabilities(model, con, source) -> np.ndarray:
    return np.column_stack([c.to_numpy() for c in model.predict_proba(con, source).columns])


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.LogisticRegression], ids=lambda k: k.kind)
def test_a_fit_leaves_out_a_column_without_values_and_says_so(con, table, kind):
    with pytest.warns(wml.AllNullColumnsWarning) as caught:
        model = kind().fit(con, table, "y", keys=["id"], numeric=["code"])
    assert len(caught) == 1 and caught[0].filename == __file__  # the caller's line
    assert "columns ['blank', 'gap'] of t have no value" in str(caught[0].message)
    assert model.feature_names_in_ == WITH_VALUES
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        listed = kind().fit(con, table, "y", features=WITH_VALUES, numeric=["code"], name="l")
    np.testing.assert_array_equal(
        probabilities(model, con, table), probabilities(listed, con, table)
    )


def test_cross_validation_and_selection_leave_it_out_once(con, table):
    with pytest.warns(wml.AllNullColumnsWarning) as caught:
        pooled = wml.cross_validate(
            con, table, "y", wml.NaiveBayes(), folds=3, key="id", numeric=["code"]
        )
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        listed = wml.cross_validate(
            con, table, "y", wml.NaiveBayes(), folds=3, key="id", features=WITH_VALUES,
            numeric=["code"],
        )  # fmt: skip
    assert pooled.to_arrow().equals(listed.to_arrow())
    candidates = [wml.NaiveBayes(numeric=["code"]), wml.TAN(numeric=["code"])]
    with pytest.warns(wml.AllNullColumnsWarning) as caught:
        best = wml.select_model(con, table, "y", candidates, folds=3, key="id")
    assert len(caught) == 2  # once per candidate's plan, none from the refit
    assert best.model.feature_names_in_ == WITH_VALUES


def test_a_listed_column_without_values_or_no_column_with_values_is_a_data_error(con, table):
    with pytest.raises(wml.DataError, match=r"features \['gap'\] of t have no value"):
        wml.NaiveBayes().fit(con, table, "y", features=["colour", "gap"])
    empty = wml.query("SELECT blank, gap, y FROM t")
    with pytest.raises(
        wml.DataError, match=r"every feature column of query .*\(\['blank', 'gap'\]\)"
    ):
        wml.NaiveBayes().fit(con, empty, "y")
    with pytest.raises(wml.DataError, match=r"every feature column of query"):
        wml.cross_validate(con, empty, "y", wml.TAN(), folds=3)
    assert wml.list_models(con).num_rows == 0


def test_the_values_are_counted_by_the_statement_reading_the_integer_ranges(con, table):
    statements: list[str] = []
    warehouse = connect(con, on_sql=statements.append)
    with open_source(warehouse, table) as src:
        before = len(statements)
        with pytest.warns(wml.AllNullColumnsWarning), pytest.warns(wml.IntegerColumnsWarning):
            chosen = choose_features(warehouse, src, "y", keys=["id"])
    profiled, distinct = statements[before:]  # the profile, then the wide integers' count
    assert 'COUNT("src"."blank")' in profiled and 'MIN("src"."code")' in profiled
    assert "COUNT(DISTINCT" in distinct.upper()
    assert [f.name for f in chosen] == WITH_VALUES


def test_the_cli_warns_in_one_line(tmp_path, capsys):
    source = tmp_path / "tennis.csv"
    lines = (FIXTURES / "play_tennis.csv").read_text().splitlines()
    source.write_text("\n".join([lines[0] + ",note", *(f"{line}," for line in lines[1:])]) + "\n")
    db = str(tmp_path / "w.duckdb")
    assert main(["train", str(source), "--target", "play", "--keys", "day", "--db", db]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"warning: columns ['note'] of {source} have no value (every row is NULL) and are left "
        "out of the features; --features ... naming the others says so without this warning"
    ]
    with duckdb.connect(db) as stored:
        assert "note" not in wml.load(stored, "naive_bayes_play").feature_names_in_
