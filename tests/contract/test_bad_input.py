"""The bad-input catalogue of docs/RELIABILITY.md: one test per row.

Each bad input gets a typed error (warehouse_ml.errors) whose message names the table/column and
says what was expected and what was found. Every failing fit is attempted under the name of an
existing model: it must leave no table behind and the old model must load and score as before.
"""

from __future__ import annotations

import re
import warnings

import duckdb
import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.errors import (
    ColumnError,
    ConnectionStateError,
    DataError,
    HighCardinalityError,
    HighCardinalityWarning,
    IncompatibleModelError,
    ModelNotFoundError,
    ParameterError,
    SourceError,
)
from warehouse_ml.stats import validation

ROWS = [
    ("a", "x", 1.0, "y"),
    ("b", "y", 2.0, "n"),
    ("a", "y", 3.5, "y"),
    ("b", "x", 4.0, "n"),
    ("a", "x", 0.5, "n"),
    ("b", "y", 2.5, "y"),
]


def _tables(con: duckdb.DuckDBPyConnection) -> set[tuple[str, str]]:
    rows = con.sql("SELECT table_schema, table_name FROM information_schema.tables").fetchall()
    return set(rows)


@pytest.fixture
def db(con):
    """Table ``t`` (f1, f2 VARCHAR, num DOUBLE, cls VARCHAR) and a model ``m`` with a view."""
    con.execute("CREATE TABLE t (f1 VARCHAR, f2 VARCHAR, num DOUBLE, cls VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", ROWS)
    wml.NaiveBayes().fit(con, "t", "cls", name="m")
    wml.load(con, "m").create_view(con, "m_scores", "t")
    return con


def _state(con):
    model = wml.load(con, "m")
    return (
        _tables(con),
        model.predict_proba(con, "t").to_pylist(),
        con.sql("SELECT * FROM m_scores").fetchall(),
        model.record.model_id,
    )


def _refused(con, error: type[Exception], pattern: str, fit) -> str:
    """Run a failing ``fit(name)`` under the existing model's name (with ``replace=True``:
    the fits take other sources and kinds); check the error and that nothing changed.
    Returns the message."""
    before = _state(con)
    with pytest.raises(error, match=pattern) as info:
        fit("m")
    assert _state(con) == before  # no partial tables, old model and view intact
    return str(info.value)


def test_missing_source(db):
    message = _refused(
        db, SourceError, "source table 'nope' does not exist",
        lambda n: wml.NaiveBayes().fit(db, "nope", "cls", name=n, replace=True),
    )  # fmt: skip
    assert "nope" in message
    with pytest.raises(SourceError, match="does not exist"):
        wml.NaiveBayes().fit(db, "no_such_file.parquet", "cls", name="m")


def test_missing_target_column(db):
    _refused(
        db, ColumnError, r"source t has no column 'zz'; its columns are \['f1'",
        lambda n: wml.NaiveBayes().fit(db, "t", "zz", name=n, replace=True),
    )  # fmt: skip


def test_missing_feature_column(db):
    _refused(
        db, ColumnError, r"source t has no column 'nope'; its columns are",
        lambda n: wml.TAN().fit(db, "t", "cls", features=["f1", "nope"], name=n, replace=True),
    )  # fmt: skip


def test_target_with_a_single_class(db):
    db.execute("CREATE TABLE one AS SELECT f1, 'y' AS cls FROM t")
    _refused(
        db, DataError,
        "target column 'cls' of one has a single class 'y'; expected at least two classes",
        lambda n: wml.NaiveBayes().fit(db, "one", "cls", name=n, replace=True),
    )  # fmt: skip


def test_class_label_with_a_nul_character(db):
    data = pa.table({"f1": ["a", "b", "a"], "cls": ["x", "y\x00z", "x"]})
    _refused(
        db, DataError,
        re.escape(
            "target column 'cls' of an Arrow table has the class 'y\\x00z', which contains a "
            "NUL character; expected labels without one"
        ),
        lambda n: wml.NaiveBayes().fit(db, data, "cls", name=n, replace=True),
    )  # fmt: skip


def test_all_null_target(db):
    db.execute("CREATE TABLE nulls AS SELECT f1, CAST(NULL AS VARCHAR) AS cls FROM t")
    _refused(
        db, DataError,
        "target column 'cls' of nulls is NULL in all 6 rows; expected at least two classes",
        lambda n: wml.TAN().fit(db, "nulls", "cls", name=n, replace=True),
    )  # fmt: skip


def test_empty_table(db):
    db.execute("CREATE TABLE empty AS SELECT * FROM t WHERE false")
    _refused(
        db, DataError, "source empty has no rows; expected rows with at least two classes",
        lambda n: wml.NaiveBayes().fit(db, "empty", "cls", name=n, replace=True),
    )  # fmt: skip


def test_zero_rows_after_removing_null_targets(db):
    db.execute("CREATE TABLE later AS SELECT f1, NULL::VARCHAR AS cls FROM t WHERE f1 = 'a'")
    _refused(
        db, DataError, "'cls' of later is NULL in all 3 rows; expected at least two classes",
        lambda n: wml.NaiveBayes().fit(db, "later", "cls", name=n, replace=True),
    )  # fmt: skip


def test_feature_equal_to_the_target(db):
    _refused(
        db, ColumnError, "target column 'cls' of t is also listed as a feature; expected",
        lambda n: wml.NaiveBayes().fit(db, "t", "cls", features=["f1", "cls"], name=n, replace=True),
    )  # fmt: skip


def test_duplicate_feature(db):
    _refused(
        db, ColumnError, r"features \['f1'\] of t are listed more than once; expected each",
        lambda n: wml.NaiveBayes().fit(db, "t", "cls", features=["f1", "f2", "f1"], name=n, replace=True),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("sql_type", "value", "hint"),
    [
        ("INTEGER[]", "[1, 2]", "nested value"),
        ("STRUCT(a INTEGER)", "{'a': 1}", "nested value"),
        ("MAP(VARCHAR, INTEGER)", "MAP {'a': 1}", "nested value"),
        ("INTEGER[2]", "[1, 2]", "nested value"),
        ("UNION(i INTEGER, s VARCHAR)", "1", "nested value"),
        ("BLOB", "'\\x01'", "binary data"),
        ("BIT", "'101'", "binary data"),
        ("GEOMETRY", "'POINT(1 2)'", "geometry"),
        ("INTERVAL", "INTERVAL 1 DAY", "interval"),
        ("VARINT", "1", "CAST it to VARCHAR"),
    ],
)
def test_unsupported_column_types(db, sql_type, value, hint):
    try:
        db.execute(f"CREATE TABLE odd AS SELECT CAST({value} AS {sql_type}) AS c, cls FROM t")
    except duckdb.Error as error:  # e.g. GEOMETRY in a DuckDB built without it
        pytest.skip(f"this DuckDB has no {sql_type}: {error}")
    message = _refused(
        db, ColumnError, r"column 'c' of odd has type .*, which a classifier cannot use; expected",
        lambda n: wml.NaiveBayes().fit(db, "odd", "cls", name=n, replace=True),
    )  # fmt: skip
    assert "Hint: " in message and hint in message
    with pytest.raises(ColumnError, match="Hint: "):
        wml.TAN().fit(db, "odd", "cls", name="m", replace=True)


def test_a_refusal_at_the_limit_names_only_the_rule_it_breaks(db, monkeypatch):
    """At exactly MAX_CATEGORIES values the count is allowed; an identifier-like column there
    is refused for being identifier-like, and the message says that alone."""
    monkeypatch.setattr(validation, "WARN_CATEGORIES", 10)
    monkeypatch.setattr(validation, "MAX_CATEGORIES", 40)
    db.execute(
        "CREATE TABLE limit_ids AS SELECT 'id' || (i % 40) AS id, "
        "CASE WHEN i % 2 = 0 THEN 'y' ELSE 'n' END AS cls FROM range(60) r(i)"
    )
    with pytest.raises(HighCardinalityError) as refused:
        wml.NaiveBayes().fit(db, "limit_ids", "cls")
    message = str(refused.value)
    assert "has 40 distinct values in 60 training rows" in message
    assert "at most 50% of the rows (here 67%" in message and "at most 40" not in message


def test_high_cardinality_identifier_is_refused_unless_allowed(db):
    n = 2 * validation.WARN_CATEGORIES
    db.execute(
        f"CREATE TABLE ids AS SELECT 'id' || i AS id, CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END "
        f"AS g, CASE WHEN i % 2 = 0 THEN 'y' ELSE 'n' END AS cls FROM range({n}) r(i)"
    )
    for kind in (wml.NaiveBayes, wml.TAN):
        _refused(
            db, HighCardinalityError,
            rf"categorical column 'id' of ids has {n} distinct values in {n} training rows; "
            r"expected distinct values on at most 50% of the rows \(here 100%: most values occur "
            r"once, like an identifier\)",
            lambda name, kind=kind: kind().fit(db, "ids", "cls", name=name, replace=True),
        )  # fmt: skip
    with pytest.warns(HighCardinalityWarning, match=f"'id' of ids has {n} distinct"):
        model = wml.NaiveBayes().fit(db, "ids", "cls", name="m3", allow_high_cardinality=True)
    assert model.feature_names_in_ == ["id", "g"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # leaving the identifier out: no warning at all
        wml.NaiveBayes().fit(db, "ids", "cls", keys=["id"], name="m2")


def test_high_cardinality_below_the_refusal_threshold_warns(con):
    n_values = validation.WARN_CATEGORIES + 100  # each value on 4 rows: not identifier-like
    con.execute(
        f"CREATE TABLE zips AS SELECT 'z' || (i % {n_values}) AS zip, "
        f"CASE WHEN i % 2 = 0 THEN 'y' ELSE 'n' END AS cls FROM range({4 * n_values}) r(i)"
    )
    with pytest.warns(HighCardinalityWarning, match=f"'zip' of zips has {n_values} distinct"):
        wml.NaiveBayes().fit(con, "zips", "cls")


@pytest.mark.parametrize("bad", ["'nan'", "'inf'", "'-inf'"])
def test_non_finite_numbers_are_refused(db, bad):
    db.execute(f"CREATE TABLE nf AS SELECT * REPLACE (CASE WHEN num = 1 THEN {bad}::DOUBLE ELSE num END AS num) FROM t")  # fmt: skip
    _refused(
        db, DataError,
        r"numeric column 'num' of nf has non-finite values .*expected finite numbers",
        lambda n: wml.NaiveBayes().fit(db, "nf", "cls", name=n, replace=True),
    )  # fmt: skip
    # TAN's bins: -inf, which is never a tile's upper edge, is found as the lowest value
    for model in (wml.TAN(), wml.DecisionTree()):
        _refused(
            db, DataError, "numeric column 'num' of nf has non-finite values .*; expected finite",
            lambda n, model=model: model.fit(db, "nf", "cls", name=n, replace=True),
        )  # fmt: skip


def test_zero_variance_numeric_attributes(db):
    # constant within each class, but other values overall: the var_smoothing floor applies
    db.execute("CREATE TABLE cv AS SELECT * REPLACE (CASE WHEN cls = 'y' THEN 1.0 ELSE 2.0 END AS num) FROM t")  # fmt: skip
    model = wml.NaiveBayes().fit(db, "cv", "cls", name="floored")
    proba = model.predict_proba(db, "cv")
    assert all(0.0 <= p <= 1.0 for p in proba["p_y"].to_pylist())
    # with var_smoothing=0 the variance is 0: refused instead of dividing by zero
    _refused(
        db, DataError,
        "numeric column 'num' of cv has zero variance in class 'n' .*; expected a positive",
        lambda n: wml.NaiveBayes(var_smoothing=0).fit(db, "cv", "cls", name=n, replace=True),
    )  # fmt: skip
    # a column constant overall makes the floor itself 0, whatever var_smoothing is
    db.execute("CREATE TABLE const AS SELECT * REPLACE (1.5 AS num) FROM t")
    _refused(
        db, DataError, "numeric column 'num' of const has zero variance",
        lambda n: wml.NaiveBayes().fit(db, "const", "cls", name=n, replace=True),
    )  # fmt: skip
    # TAN bins it: one bin, a valid (uninformative) attribute
    assert wml.TAN().fit(db, "const", "cls", name="tan_const").predict(db, "const").num_rows == 6


def test_scoring_a_source_with_a_missing_column(db):
    db.execute("CREATE TABLE drifted AS SELECT f1, num FROM t")
    model = wml.load(db, "m")
    pattern = (
        r"source drifted has no column 'f2', a feature of model 'm'; expected the features "
        r"\['f1', 'f2', 'num'\], found the columns \['f1', 'num'\]"
    )
    for call in (
        lambda: model.predict_proba(db, "drifted"),
        lambda: model.predict(db, "drifted"),
        lambda: model.create_view(db, "v", "drifted"),
        lambda: wml.evaluate(db, model, "t_without_target"),
    ):
        db.execute("CREATE OR REPLACE TABLE t_without_target AS SELECT f1, f2, num FROM t")
        with pytest.raises(ColumnError, match=r"has no column"):
            call()
    with pytest.raises(ColumnError, match=pattern):
        model.predict_proba(db, "drifted")


def test_scoring_a_source_whose_column_type_changed(db):
    db.execute("CREATE TABLE retyped AS SELECT f1, f2, CAST(num AS VARCHAR) AS num FROM t")
    with pytest.raises(
        ColumnError, match="column 'num' of retyped has type string; model 'm' was fitted on "
    ):
        wml.load(db, "m").predict_proba(db, "retyped")


def test_loading_a_model_that_does_not_exist(db, tmp_path):
    with pytest.raises(ModelNotFoundError, match=r"no model 'nope' in wml.models; models here"):
        wml.load(db, "nope")
    with pytest.raises(ModelNotFoundError, match="has no model catalog yet"):
        wml.load(duckdb.connect(str(tmp_path / "new.duckdb")), "nope")
    with pytest.raises(ModelNotFoundError, match="no model 'nope'"):
        wml.drop(db, "nope")


def test_loading_a_model_of_a_newer_format(db):
    db.execute("UPDATE wml.models SET format_version = 99 WHERE name = 'm'")
    with pytest.raises(
        IncompatibleModelError,
        match=r"model 'm' was written in catalog format 99 .* this version reads format \d+ or older",
    ):
        wml.load(db, "m")
    db.execute("UPDATE wml.models SET format_version = 1, kind = 'forest' WHERE name = 'm'")
    with pytest.raises(IncompatibleModelError, match="of kind 'forest', unknown"):
        wml.load(db, "m")


@pytest.mark.parametrize(
    ("loss", "pattern"),
    [
        ([[0, 1, 1], [1, 0, 1]], r"loss matrix must be 2x2 \(classes \['n', 'y'\]\), got 2 rows"),
        ([[0, 1], [1]], r"must be 2x2 .*, got 2 rows of lengths \[2, 1\]"),
        ([[0, -1], [1, 0]], r"entries must be finite numbers >= 0, got -1.0"),
        ([[0, float("inf")], [1, 0]], r"entries must be finite numbers >= 0, got inf"),
        ([[0, float("nan")], [1, 0]], r"entries must be finite numbers >= 0, got nan"),
        ([["a", 1], [1, 0]], r"a loss matrix entry must be a number, got 'a'"),
        ([1, 2], r"loss must be a list of rows"),
    ],
)
def test_bad_loss_matrix(db, loss, pattern):
    model = wml.load(db, "m")
    with pytest.raises(ParameterError, match=pattern):
        model.predict(db, "t", loss=loss)
    with pytest.raises(ParameterError, match=pattern):
        model.create_view(db, "v", "t", loss=loss)
    assert ("main", "v") not in _tables(db)


@pytest.mark.parametrize("threshold", [-0.1, 1.5, float("nan"), "x", True])
def test_threshold_outside_zero_one(db, threshold):
    with pytest.raises(ParameterError, match=r"threshold must be (within \[0, 1\]|a number)"):
        wml.load(db, "m").predict(db, "t", threshold=threshold)


def test_folds_greater_than_rows(db):
    before = _tables(db)
    with pytest.raises(ParameterError, match="folds=7 exceeds the 6 rows of t; expected at most"):
        wml.assign_folds(db, "t", folds=7)
    with pytest.raises(ParameterError, match="folds=7 exceeds the 6 rows of t"):
        wml.cross_validate(db, "t", "cls", wml.NaiveBayes(), folds=7)
    with pytest.raises(ParameterError, match="folds must be an integer >= 2, got 1"):
        wml.cross_validate(db, "t", "cls", wml.NaiveBayes(), folds=1)
    assert _tables(db) == before


def test_errors_reach_the_cli_as_one_line(db, tmp_path, capsys):
    from warehouse_ml.cli import main

    path = str(tmp_path / "w.duckdb")
    con = duckdb.connect(path)
    con.execute("CREATE TABLE t AS SELECT 'x' || (i % 3) AS a, 'c' AS cls FROM range(5) r(i)")
    con.close()
    assert main(["train", "t", "--target", "cls", "--db", path]) == 1
    err = capsys.readouterr().err
    assert re.search(r"error: target column 'cls' of t has a single class 'c'", err)
    assert main(["predict", "nope", "t", "--db", path]) == 1
    assert "no model 'nope'" in capsys.readouterr().err


def test_messages_never_leak_a_raw_engine_exception(db):
    """Every error above is a WarehouseMLError; this spot-checks an Arrow source too."""
    data = pa.table({"a": [[1], [2]], "cls": ["x", "y"]})
    with pytest.raises(ColumnError, match="column 'a' of an Arrow table has type list"):
        wml.NaiveBayes().fit(db, data, "cls")


@pytest.mark.parametrize(
    "options, pattern",
    [
        ({"cost_ratio": "5"}, r"cost_ratio must be a positive finite number, got '5'"),
        ({"cost_ratio": float("inf")}, r"cost_ratio must be a positive finite number, got inf"),
        ({"cost_ratio": True}, r"cost_ratio must be a positive finite number, got True"),
        ({"target_recall": "0.5"}, r"target_recall must be within \(0, 1\], got '0.5'"),
    ],
)
def test_best_threshold_options_of_another_type(db, options, pattern):
    scores = wml.load(db, "m").score_rows(db, "t")
    with pytest.raises(ParameterError, match=pattern):
        wml.best_threshold(db, scores, target="cls", **options)
    numpy_ratio = wml.best_threshold(db, scores, target="cls", cost_ratio=np.float64(5.0))
    assert numpy_ratio == wml.best_threshold(db, scores, target="cls", cost_ratio=5)


def test_sql_in_an_unknown_dialect_lists_the_known_ones(db):
    model = wml.load(db, "m")
    pattern = r"dialect must be a SQL dialect sqlglot knows, such as \['duckdb', 'postgres'.*'nope'"
    with pytest.raises(ParameterError, match=pattern):
        model.sql(db, "t", dialect="nope")
    scores = model.score_rows(db, "t")
    db.register("scores", scores)
    with pytest.raises(ParameterError, match=pattern):
        wml.measure_sql(db, "accuracy", "scores", target="cls", dialect="nope")
    assert "SELECT" in model.sql(db, "t", dialect="sqlite")  # any dialect sqlglot knows


def test_writing_calls_on_a_read_only_connection_say_what_they_write(tmp_path):
    path = str(tmp_path / "w.duckdb")
    con = duckdb.connect(path)
    con.execute("CREATE TABLE t (k INTEGER, f1 VARCHAR, f2 VARCHAR, num DOUBLE, cls VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [(i, *r) for i, r in enumerate(ROWS)])
    wml.NaiveBayes().fit(con, "t", "cls", keys=["k"], name="m")
    con.close()
    reader = duckdb.connect(path, read_only=True)
    model = wml.load(reader, "m")
    predictions = model.predict(reader, "t")  # reading needs no writing
    read_only = r"the DuckDB database 'w' is open read-only .*, and this call writes"
    with pytest.raises(ConnectionStateError, match=rf"{read_only} the new version of model 'm'"):
        model.update(reader, "t", batch_id="b")
    with pytest.raises(ConnectionStateError, match=rf"{read_only} the resample's table"):
        wml.resample(reader, "t", "cls", key="k")
    with pytest.raises(ConnectionStateError, match=rf"{read_only} model 'm2'"):
        wml.NaiveBayes().fit(reader, "t", "cls", name="m2")
    with pytest.raises(ConnectionStateError, match=rf"{read_only} the split's table"):
        wml.assign_folds(reader, "t", folds=2, key="k")
    assert wml.load(reader, "m").batches_ == []
    assert model.predict(reader, "t").equals(predictions)
    reader.close()


@pytest.mark.parametrize(
    "measure, options, pattern",
    [
        ("log_score", {"floor": "x"}, r"floor must be a number within \(0, 0.5\), got 'x'"),
        ("accuracy", {"level": "x"}, r"level must be a number within \(0, 1\), got 'x'"),
        ("class_measures", {"beta": None}, r"beta must be a number > 0, got None"),
        ("lift_table", {"quantiles": 5.0}, r"quantiles must be a count or increasing"),
        ("lift_table", {"quantiles": ["x"]}, r"a quantile must be a number within \(0, 1\]"),
        ("average_precision", {"recall_levels": "x"}, r"recall_levels must be a list of numbers"),
    ],
)
def test_measure_options_of_another_type(db, measure, options, pattern):
    scores = wml.load(db, "m").score_rows(db, "t")
    with pytest.raises(ParameterError, match=pattern):
        getattr(wml, measure)(db, scores, target="cls", **options)
