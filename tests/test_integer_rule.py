"""The rule for undeclared integer columns (warehouse_ml/stats/integer_rule.py): at most 32
distinct values is a code (categorical), more is a number (numeric), decided by one statement
and announced by one warning that says how to override it."""

from __future__ import annotations

import decimal
import warnings

import duckdb
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.engines.sources import open_source
from warehouse_ml.stats.features import CATEGORICAL, NUMERIC, select_features
from warehouse_ml.stats.integer_rule import MAX_INTEGER_CATEGORIES, apply_integer_rule

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
    declared = declared or {}
    warehouse = connect(duckdb.connect())
    with open_source(warehouse, DATA) as src:
        features = select_features(src, "y", **declared)
        chosen = apply_integer_rule(
            warehouse, src, features, [n for names in declared.values() for n in names]
        )
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


def test_no_statement_when_no_integer_is_undeclared():
    statements: list[str] = []
    warehouse = connect(duckdb.connect(), on_sql=statements.append)
    with open_source(warehouse, DATA.select(["text", "real", "y"])) as src:
        features = select_features(src, "y")
        before = len(statements)
        assert apply_integer_rule(warehouse, src, features, []) == features
    assert len(statements) == before


def test_adult_integers(datasets):
    """UCI adult: age, fnlwgt, capital-gain, capital-loss and hours-per-week are numbers,
    education-num (16 values) a code."""
    con = duckdb.connect()
    warehouse = connect(con)
    with open_source(warehouse, str(datasets / "adult.csv")) as src:
        features = select_features(src, "class")
        with pytest.warns(wml.IntegerColumnsWarning):
            chosen = apply_integer_rule(warehouse, src, features, [])
    numeric = [f.name for f in chosen if f.kind == NUMERIC]
    assert numeric == ["age", "fnlwgt", "capital-gain", "capital-loss", "hours-per-week"]
