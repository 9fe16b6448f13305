"""Three rules about values that hold for every registered model kind (models/kinds.py), at fit
and at scoring, in predictions, views and exported SQL (docs/RELIABILITY.md, "Values"):

* a number is one value whatever its sign of zero: -0.0 counts, splits and scores as 0.0;
* a text value is compared byte for byte whatever the source's collation (a column's own, or
  the session's ``default_collation``), and key columns come back exactly as stored;
* a numeric attribute that is NaN or infinite at scoring gives NULL probabilities and a NULL
  prediction (a fit refuses such a value), never a label from NaN arithmetic.
"""

from __future__ import annotations

import math

import duckdb
import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.models import kinds

SPECS = kinds.specs()
LABELS = ["no", "yes"]


def by_kind(test):
    return pytest.mark.parametrize("spec", SPECS, ids=[s.kind for s in SPECS])(test)


def rows(n: int = 120, seed: int = 3) -> dict[str, list]:
    """Two classes; ``colour`` in four spellings that differ only by case ('a', 'A', 'b', 'B'),
    each its own value; ``size`` a float of which a third are zeros (some -0.0); ``id``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    side = [v if rng.random() < 0.75 else 1 - v for v in y]
    colour = [["a", "A", "b", "B"][2 * s + int(rng.integers(0, 2))] for s in side]
    size = [0.0 if i % 3 == 0 else float(v + rng.normal()) for i, v in enumerate(y)]
    return {
        "id": list(range(n)),
        "colour": colour,
        "size": size,
        "y": [LABELS[v] for v in y],
    }


def table(data: dict[str, list]) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(data["id"], pa.int64()),
            "colour": pa.array(data["colour"], pa.string()),
            "size": pa.array(data["size"], pa.float64()),
            "y": pa.array(data["y"], pa.string()),
        }
    )


def negated_zeros(data: dict[str, list]) -> dict[str, list]:
    """``data`` with every other zero of ``size`` written as -0.0."""
    zeros = [i for i, x in enumerate(data["size"]) if x == 0]
    size = list(data["size"])
    for i in zeros[::2]:
        size[i] = -0.0
    return {**data, "size": size}


def model_of(spec: kinds.KindSpec, **settings) -> wml.NaiveBayes:
    return spec.load()(**settings)


def probabilities(model, con, source) -> np.ndarray:
    return np.column_stack([c.to_numpy() for c in model.predict_proba(con, source).columns])


def fitted(spec, con, source, name: str, **options):
    settings = options.pop("settings", {})
    return model_of(spec, **settings).fit(
        con, source, "y", features=["colour", "size"], keys=["id"], name=name, **options
    )


SIGN_CASES = [(s, {}, {}) for s in SPECS] + [
    (kinds.spec_of("decision_tree"), {"bins": None, "pruning": "none", "min_leaf": 1}, {}),
    (kinds.spec_of("naive_bayes"), {}, {"categorical": ["size"]}),
    (kinds.spec_of("tan"), {}, {"categorical": ["size"]}),
    (kinds.spec_of("decision_tree"), {}, {"categorical": ["size"]}),
    (kinds.spec_of("logistic_regression"), {}, {"categorical": ["size"]}),
]


@pytest.mark.parametrize(
    ("spec", "settings", "options"),
    SIGN_CASES,
    ids=[
        f"{s.kind}{'-' + '-'.join(f'{k}={v}' for k, v in {**a, **b}.items()) if a or b else ''}"
        for s, a, b in SIGN_CASES
    ],
)
def test_a_negative_zero_fits_and_scores_as_zero(con, spec, settings, options):
    plain = table(rows())
    signed = table(negated_zeros(rows()))
    assert any(math.copysign(1, x) < 0 for x in signed["size"].to_pylist())
    by_plain = fitted(spec, con, plain, "plain", settings=settings, **options)
    by_signed = fitted(spec, con, signed, "signed", settings=settings, **options)
    expected = probabilities(by_plain, con, plain)
    for model in (by_plain, by_signed):
        for source in (plain, signed):
            np.testing.assert_allclose(
                probabilities(model, con, source), expected, rtol=0, atol=1e-12
            )


def _nocase_copy(con: duckdb.DuckDBPyConnection, data: pa.Table, name: str) -> str:
    con.register("wml_test_rows", data)
    con.execute(
        f"CREATE TABLE {name} (id BIGINT, colour VARCHAR COLLATE NOCASE, size DOUBLE, "
        "y VARCHAR COLLATE NOCASE)"
    )
    con.execute(f"INSERT INTO {name} SELECT id, colour, size, y FROM wml_test_rows")
    con.unregister("wml_test_rows")
    return name


@by_kind
def test_text_is_compared_byte_for_byte_whatever_the_collation(con, spec):
    data = table(rows())
    con.register("rows", data)
    con.execute("CREATE TABLE plain AS SELECT * FROM rows")
    _nocase_copy(con, data, "nocase")
    by_plain = fitted(spec, con, "plain", "by_plain")
    expected = probabilities(by_plain, con, "plain")
    # a source column that compares case-insensitively is read as its bytes at scoring ...
    np.testing.assert_allclose(probabilities(by_plain, con, "nocase"), expected, atol=1e-12)
    view = by_plain.create_view(con, "nocase_scores", "nocase", keys=["id"])
    names = ", ".join(f'"{c}"' for c in by_plain.predict_proba(con, "plain").column_names)
    from_view = np.array(con.execute(f"SELECT {names} FROM {view} ORDER BY id").fetchall())
    np.testing.assert_allclose(from_view, expected, atol=1e-12)
    # ... and at fit: 'a' and 'A' stay two values
    by_nocase = fitted(spec, con, "nocase", "by_nocase")
    np.testing.assert_allclose(probabilities(by_nocase, con, "plain"), expected, atol=1e-12)
    # a session whose default collation ignores case changes nothing either, nor is it changed
    con.execute("SET default_collation = 'nocase'")
    try:
        np.testing.assert_allclose(probabilities(by_plain, con, "plain"), expected, atol=1e-12)
        from_view = np.array(con.execute(f"SELECT {names} FROM {view} ORDER BY id").fetchall())
        np.testing.assert_allclose(from_view, expected, atol=1e-12)
        refitted = fitted(spec, con, "plain", "by_plain_nocase_session")
        np.testing.assert_allclose(probabilities(refitted, con, "plain"), expected, atol=1e-12)
        setting = con.execute("SELECT current_setting('default_collation')").fetchone()[0]
        assert setting == "nocase"
    finally:
        con.execute("RESET default_collation")


@by_kind
def test_keys_come_back_exactly_as_stored(con, spec):
    data = rows(40)
    con.register("rows", table(data))
    con.execute("CREATE TABLE train AS SELECT * FROM rows")
    model = fitted(spec, con, "train", "m")
    # rows alike but for keys that a collation or IEEE equality would take for one value
    con.execute(
        "CREATE TABLE scored (code VARCHAR COLLATE NOCASE, x DOUBLE, colour VARCHAR, size DOUBLE)"
    )
    con.execute(
        "INSERT INTO scored VALUES ('ROW1', 0.0, 'a', 1.0), ('row1', CAST('-0.0' AS DOUBLE), 'a', 1.0), "
        "('Row1', 0.0, 'a', 1.0)"
    )
    stored = [("ROW1", 1.0), ("Row1", 1.0), ("row1", -1.0)]
    view = model.create_view(con, "keyed", "scored", keys=["code", "x"])
    got = con.execute(f"SELECT code, x FROM {view}").fetchall()
    assert sorted((c, math.copysign(1, x)) for c, x in got) == stored
    predicted = model.predict(con, "scored", keys=["code", "x"]).to_pylist()
    assert sorted((r["code"], math.copysign(1, r["x"])) for r in predicted) == stored
    # a float key alone: 0.0 and -0.0 are two rows, each with its own sign
    view = model.create_view(con, "keyed_by_x", "scored", keys=["x"])
    signs = sorted(math.copysign(1, x) for (x,) in con.execute(f"SELECT x FROM {view}").fetchall())
    assert signs == [-1.0, 1.0, 1.0]


NON_FINITE = [float("nan"), float("inf"), float("-inf")]


@by_kind
def test_a_non_finite_number_scores_null(con, spec):
    data = rows(60)
    con.register("rows", table(data))
    con.execute("CREATE TABLE train AS SELECT * FROM rows")
    model = fitted(spec, con, "train", "m")
    scored = {
        "id": [0, 1, 2, 3],
        "colour": ["a", "A", "b", "B"],
        "size": [*NON_FINITE, 0.5],
        "y": ["no", "no", "yes", "yes"],
    }
    con.register("scored_rows", table(scored))
    con.execute("CREATE TABLE scored AS SELECT * FROM scored_rows")
    finite = probabilities(model, con, table({k: v[3:] for k, v in scored.items()}))
    proba = model.predict_proba(con, "scored")
    assert all(c.null_count == 3 for c in proba.columns), proba.to_pylist()
    np.testing.assert_allclose(probabilities(model, con, "scored")[3:], finite, atol=1e-12)
    log_proba = model.predict_log_proba(con, "scored")
    assert all(c.null_count == 3 for c in log_proba.columns), log_proba.to_pylist()
    predicted = model.predict(con, "scored", keys=["id"]).to_pylist()
    assert [r["prediction"] is None for r in predicted] == [True, True, True, False]
    view = model.create_view(con, "non_finite_scores", "scored", keys=["id"])
    from_view = con.execute(f"SELECT id, prediction FROM {view} ORDER BY id").fetchall()
    assert [p is None for _, p in from_view] == [True, True, True, False]
    exported = model.sql(con, "scored", keys=["id"], dialect="duckdb")
    from_export = con.execute(f"SELECT id, prediction FROM ({exported}) ORDER BY id").fetchall()
    assert [p is None for _, p in from_export] == [True, True, True, False]
