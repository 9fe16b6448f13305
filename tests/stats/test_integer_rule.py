"""The rule for undeclared integer columns (warehouse_ml/stats/integer_rule.py): at most 32
distinct values is a code (categorical), more is a number (numeric), decided by the columns'
ranges (and the distinct values of the wider ones only) and announced by one warning that says
how to override it."""

from __future__ import annotations

import decimal
import re
import warnings

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import warehouse_ml as wml
from warehouse_ml.cli import main
from warehouse_ml.engines import connect
from warehouse_ml.engines.sources import open_source
from warehouse_ml.stats import validation
from warehouse_ml.stats.features import CATEGORICAL, NUMERIC
from warehouse_ml.stats.integer_rule import MAX_INTEGER_CATEGORIES, choose_features

N = 400


def values(distinct: int, *, nulls: bool = False) -> list[int | None]:
    column = [i % distinct for i in range(N)]
    return [None if nulls and i % 7 == 0 else v for i, v in enumerate(column)]


DATA = pa.table(
    {
        "code": pa.array(values(MAX_INTEGER_CATEGORIES), pa.int64()),
        "count": pa.array(values(MAX_INTEGER_CATEGORIES + 1), pa.int32()),
        "null_heavy": pa.array(values(MAX_INTEGER_CATEGORIES + 1, nulls=True), pa.int16()),
        "unsigned": pa.array(values(200), pa.uint64()),
        "huge": pa.array([decimal.Decimal(v) for v in values(50)], pa.decimal128(38, 0)),
        "text": pa.array([str(v) for v in values(100)], pa.string()),
        "real": pa.array([v / 3 for v in values(5)], pa.float64()),
        "y": pa.array(["a", "b"] * (N // 2), pa.string()),
    }
)


def decided(declared: dict[str, list[str]] | None = None) -> dict[str, str]:
    warehouse = connect(duckdb.connect())
    with open_source(warehouse, DATA) as src:
        chosen = choose_features(warehouse, src, "y", **(declared or {}))
    return {f.name: f.kind for f in chosen}


def test_more_than_32_distinct_integers_are_numeric_and_one_warning_names_them():
    with pytest.warns(wml.IntegerColumnsWarning) as caught:
        kinds = decided()
    assert kinds == {
        "code": CATEGORICAL,  # exactly 32 values
        "count": NUMERIC,
        "null_heavy": NUMERIC,  # NULL is not a value
        "unsigned": NUMERIC,
        "huge": NUMERIC,  # an integer-valued decimal is an integer
        "text": CATEGORICAL,  # text is never counted as a number
        "real": NUMERIC,
    }
    assert len(caught) == 1
    message = str(caught[0].message)
    assert "'count' (33 distinct values)" in message and "'unsigned' (200" in message
    assert "categorical=['count', 'null_heavy', 'unsigned', 'huge']" in message
    assert caught[0].filename == __file__  # points at the caller, not into the package


def test_declared_columns_keep_their_kind_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        kinds = decided({"categorical": ["count", "null_heavy", "unsigned", "huge"]})
    assert kinds["count"] == kinds["unsigned"] == CATEGORICAL


def test_one_statement_profiles_the_features_when_no_integer_is_undeclared():
    """The statement counting each feature's values (stats/column_profile.py) is all the
    choice runs: no range and no distinct count without an undeclared integer column."""
    statements: list[str] = []
    warehouse = connect(duckdb.connect(), on_sql=statements.append)
    with open_source(warehouse, DATA.select(["text", "real", "count", "y"])) as src:
        before = len(statements)
        chosen = choose_features(warehouse, src, "y", categorical=["count"])
    assert [f.kind for f in chosen] == [CATEGORICAL, NUMERIC, CATEGORICAL]
    assert len(statements) - before == 1 and "MIN(" not in statements[-1].upper()


def test_codes_spanning_at_most_32_integers_are_decided_by_their_range_alone():
    """Only a column whose range is wider than 32 integers has its distinct values counted:
    the narrow ones are codes whatever their values (the count is the expensive statement)."""
    statements: list[str] = []
    warehouse = connect(duckdb.connect(), on_sql=statements.append)
    data = pa.table(
        {
            "narrow": pa.array([i % 32 + 1000 for i in range(N)], pa.int32()),
            "sparse": pa.array([(i % 3) * 1000 for i in range(N)], pa.int64()),
            "empty": pa.array([None] * N, pa.int16()),
            "y": pa.array(["a", "b"] * (N // 2), pa.string()),
        }
    )
    with open_source(warehouse, data) as src:
        before = len(statements)
        with pytest.warns(wml.AllNullColumnsWarning, match=r"columns \['empty'\]"):
            chosen = choose_features(warehouse, src, "y")
    assert {f.name: f.kind for f in chosen} == dict.fromkeys(["narrow", "sparse"], CATEGORICAL)
    counted = [s for s in statements[before:] if "COUNT(DISTINCT" in s.upper()]
    assert len(statements) - before == 2 and len(counted) == 1
    assert 'DISTINCT "src"."sparse"' in counted[0] and 'DISTINCT "src"."narrow"' not in counted[0]
    with open_source(warehouse, data.select(["narrow", "y"])) as src:
        before = len(statements)
        choose_features(warehouse, src, "y")
    assert len(statements) - before == 1 and "COUNT(DISTINCT" not in statements[-1].upper()


def test_adult_integers(datasets):
    """UCI adult: age, fnlwgt, capital-gain, capital-loss and hours-per-week are numbers,
    education-num (16 values) a code."""
    con = duckdb.connect()
    warehouse = connect(con)
    with (
        open_source(warehouse, str(datasets / "adult.csv")) as src,
        pytest.warns(wml.IntegerColumnsWarning),
    ):
        chosen = choose_features(warehouse, src, "class")
    numeric = [f.name for f in chosen if f.kind == NUMERIC]
    assert numeric == ["age", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week"]


# -- the same rule in every call that chooses features --------------------------------------
def kinds_of(model: wml.NaiveBayes | wml.TAN) -> dict[str, str]:
    return {f.name: f.kind for f in model.features_}


MANY = ["count", "null_heavy", "unsigned", "huge"]  # the integer columns with > 32 values


def test_fit_applies_the_rule_and_the_models_own_declarations_win_over_it(con):
    with pytest.warns(wml.IntegerColumnsWarning) as caught:
        automatic = wml.NaiveBayes().fit(con, DATA, "y")
    assert len(caught) == 1 and caught[0].filename == __file__
    assert [n for n, k in kinds_of(automatic).items() if k == NUMERIC] == [*MANY, "real"]
    configured = wml.TAN(categorical=MANY)
    assert configured.get_params()["categorical"] == MANY
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fitted = configured.fit(con, DATA, "y", name="configured")
        assert kinds_of(fitted)["count"] == CATEGORICAL
        assert wml.load(con, "configured").get_params()["categorical"] == MANY
        overridden = configured.fit(con, DATA, "y", categorical=[], numeric=MANY, name="o")
    assert kinds_of(overridden)["count"] == NUMERIC  # the call's own declarations win


def test_cross_validation_decides_once_for_every_fold(con):
    with pytest.warns(wml.IntegerColumnsWarning) as caught:
        automatic = wml.cross_validate(con, DATA, "y", wml.NaiveBayes(), folds=5)
    assert len(caught) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        declared = wml.cross_validate(con, DATA, "y", wml.NaiveBayes(), folds=5, numeric=MANY)
    assert automatic.to_arrow().equals(declared.to_arrow())
    tan = wml.TAN()
    with pytest.warns(wml.IntegerColumnsWarning) as caught:
        wml.cross_validate(con, DATA, "y", tan, folds=3).drop()  # TAN: numeric folds fit each
    assert len(caught) == 1


def test_select_model_refits_the_winner_with_the_features_its_cv_chose(con):
    candidates = [wml.NaiveBayes(categorical=MANY), wml.Candidate(wml.NaiveBayes(), numeric=MANY)]
    selection = wml.select_model(con, DATA, "y", candidates, folds=3, name="chosen")
    winner = next(row for row in selection.comparison.to_pylist() if row["chosen"])
    expected = CATEGORICAL if winner["candidate"] == 0 else NUMERIC
    assert kinds_of(selection.model)["count"] == expected


def test_the_cli_warns_in_one_line_with_its_own_options(tmp_path, capsys):
    source = tmp_path / "data.parquet"
    pq.write_table(DATA.select(["code", "count", "y"]), source)
    db = str(tmp_path / "w.duckdb")
    assert main(["evaluate", str(source), "--target", "y", "--folds", "3", "--db", db]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "warning: integer columns 'count' (33 distinct values) of "
        f"{source} are modelled as numeric, having more than 32 distinct values: --numeric "
        "count declares them so, without this warning; --categorical count counts their "
        "values as categories instead"
    ]
    for told in (["--categorical", "count"], ["--numeric", "count"]):  # each way, as written
        assert main(["train", str(source), "--target", "y", *told, "--db", db]) == 0
        assert capsys.readouterr().err == ""


# -- the warning's advice, followed literally --------------------------------------------------
ADVICE = re.compile(
    r"numeric=\[(?P<numeric>[^\]]*)\] declares them so, without this warning; "
    r"categorical=\[(?P<categorical>[^\]]*)\] counts their values as categories instead"
    r"(?:, with allow_high_cardinality=True for (?P<allow>'[^(]*') \()?"
)


def advice(message: str) -> dict[str, list[str]]:
    """The column lists the warning advises (numeric, categorical, those needing
    allow_high_cardinality), read from its text as a user reads them."""
    found = ADVICE.search(message)
    assert found is not None, message
    return {
        part: [] if found[part] is None else [n.strip().strip("'") for n in found[part].split(",")]
        for part in ("numeric", "categorical", "allow")
    }


def follow(con, source, target: str, **fit) -> dict[str, list[str]]:
    """Fit, read the warning's advice, then do what it says both ways: each fit succeeds, the
    numeric one without the warning."""
    with pytest.warns(wml.IntegerColumnsWarning) as caught:
        wml.NaiveBayes().fit(con, source, target, name="automatic", **fit)
    told = advice(str(caught[0].message))
    with warnings.catch_warnings():
        warnings.simplefilter("error", wml.IntegerColumnsWarning)
        numeric = wml.NaiveBayes().fit(
            con, source, target, numeric=told["numeric"], name="n", **fit
        )
    assert {f.name for f in numeric.features_ if f.kind == NUMERIC} >= set(told["numeric"])
    allowed = {"allow_high_cardinality": True} if told["allow"] else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wml.HighCardinalityWarning)
        categorical = wml.NaiveBayes().fit(
            con, source, target, categorical=told["categorical"], name="c", **allowed, **fit
        )
    assert {f.name for f in categorical.features_ if f.kind == CATEGORICAL} >= set(
        told["categorical"]
    )
    return told


def test_following_the_warnings_advice_fits(con):
    """An identifier-like integer column: categorical=[...] alone would be refused
    (HighCardinalityError), so the advice says which columns need allow_high_cardinality=True;
    numeric=[...] declares them all so without the warning."""
    n = 2 * validation.WARN_CATEGORIES
    data = pa.table(
        {
            "count": pa.array([i % 40 for i in range(n)], pa.int64()),
            "serial": pa.array(range(n), pa.int64()),
            "y": pa.array(["a", "b", "b"] * (n // 3) + ["a"] * (n % 3)),
        }
    )
    told = follow(con, data, "y")
    assert told == {"numeric": ["count", "serial"], "categorical": ["count", "serial"],
                    "allow": ["serial"]}  # fmt: skip
    with pytest.raises(wml.HighCardinalityError, match="'serial'"):
        wml.NaiveBayes().fit(con, data, "y", categorical=told["categorical"], name="c")
    assert follow(con, data.drop_columns(["serial"]), "y")["allow"] == []


@pytest.mark.slow
def test_following_the_warnings_advice_fits_on_adult(con, datasets):
    """UCI adult: fnlwgt's values are too many for a category, the others' are not."""
    told = follow(con, str(datasets / "adult.csv"), "class")
    assert told["allow"] == ["fnlwgt"]
    assert told["numeric"] == told["categorical"] == [
        "age", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week"
    ]  # fmt: skip
