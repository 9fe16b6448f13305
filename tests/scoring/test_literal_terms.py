"""A fitted model's few parameters written into its query as literals score exactly as the
joined parameter tables do: the same probabilities (1e-12) and the same predictions, for seen,
unseen and NULL values, unseen and NULL parent values, binned numeric attributes, impossible
classes (alpha = 0), views included."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.models.scoring import literal_terms

N = 400


def training() -> pa.Table:
    rng = np.random.default_rng(11)
    a = rng.choice(["x", "y", "z's"], N)
    b = np.where((rng.random(N) < 0.5) & (a == "y"), "w", a)  # pairs (w, x), (x, y) unseen
    c = rng.choice(["p", "q"], N)
    label = np.where((a == "x") ^ (c == "p"), "yes", "no")
    label = np.where(rng.random(N) < 0.15, rng.choice(["yes", "no", "maybe"], N), label)

    def holes(values: np.ndarray) -> list:
        return [None if rng.random() < 0.08 else v for v in values.tolist()]

    return pa.table(
        {
            "id": np.arange(N),
            "a": holes(a),
            "b": holes(b),
            "c": holes(c),
            "amount": holes(np.round(rng.normal(50, 20, N), 2) + (a == "x") * 15),
            "label": label.tolist(),
        }
    )


SCORED = pa.table(
    {
        "id": list(range(6)),
        "a": ["x", "never", None, "y", "z's", "x"],
        "b": ["w", "x", "w", None, "unseen", "y"],
        "c": ["p", "q", None, "q", "p", "never"],
        "amount": [50.0, None, -1e6, 75.5, 20.0, 1e6],
    }
)

MODELS = [
    wml.NaiveBayes(),
    wml.NaiveBayes(alpha=0.0),
    wml.TAN(),
    wml.TAN(alpha=0.0, prior_alpha=0.0),
    wml.TAN(numeric=["amount"]),
]


def scored_both_ways(con, model, monkeypatch) -> tuple[pa.Table, pa.Table, str, str]:
    """(joined rows, literal rows, joined SQL, literal SQL) of the same fitted model."""
    fitted = model.fit(con, training(), "label", keys=["id"], name="m")
    con.register("scored", SCORED)
    literal_sql = fitted.sql(con, "scored", keys=["id"])
    literal = fitted.score_rows(con, SCORED, keys=["id"])
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_VALUES", 0)
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_PAIRS", 0)
    joined = fitted.score_rows(con, SCORED, keys=["id"])
    return joined, literal, fitted.sql(con, "scored", keys=["id"]), literal_sql


def assert_same_probabilities(got: pa.Table, expected: pa.Table) -> None:
    """The same probability columns, equal within 1e-12."""
    assert got.column_names == expected.column_names
    for name in expected.column_names:
        np.testing.assert_allclose(
            np.array(got[name].to_pylist(), dtype=float),
            np.array(expected[name].to_pylist(), dtype=float),
            rtol=0,
            atol=1e-12,
        )


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_literal_scoring_equals_the_joined_tables(con, monkeypatch, model):
    joined, literal, joined_sql, literal_sql = scored_both_ways(con, model, monkeypatch)
    assert literal_sql.count(" JOIN ") == 0 < joined_sql.count(" JOIN ")
    assert literal.column_names == joined.column_names
    assert literal["prediction"].to_pylist() == joined["prediction"].to_pylist()
    for name in literal.column_names:
        if name.startswith("p_"):
            got = np.array(literal[name].to_pylist(), dtype=float)
            expected = np.array(joined[name].to_pylist(), dtype=float)
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12, equal_nan=True)


def test_an_attribute_over_the_limits_keeps_its_joins(con, monkeypatch):
    """With two seen values allowed, the three-valued attributes are joined, ``c`` is a
    literal; the probabilities stay those of the all-literal query. A joined attribute is one
    join: its seen values' pivot (its unseen term is a literal, models/scoring/parameters.py)."""
    fitted = wml.NaiveBayes().fit(con, training(), "label", keys=["id"], name="m")
    every = fitted.predict_proba(con, SCORED)
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_VALUES", 2)
    con.register("scored", SCORED)
    sql = fitted.sql(con, "scored", keys=["id"])
    assert sql.count(" JOIN ") == 2  # the seen values of a and of b
    mixed = fitted.predict_proba(con, SCORED)
    assert_same_probabilities(mixed, every)


def test_a_view_holds_the_literals_of_its_model_and_follows_a_refit(con):
    fitted = wml.NaiveBayes().fit(con, training(), "label", keys=["id"], name="m")
    con.register("scored_rows", SCORED)
    con.execute("CREATE TABLE scored AS SELECT * FROM scored_rows")
    fitted.create_view(con, "scores", "scored", keys=["id"])
    before = con.sql("SELECT p_yes FROM scores ORDER BY id").fetchall()
    assert before == [
        (p,) for p in fitted.score_rows(con, "scored", keys=["id"])["p_yes"].to_pylist()
    ]
    refit = wml.NaiveBayes(alpha=5.0).fit(con, training(), "label", keys=["id"], name="m")
    after = con.sql("SELECT p_yes FROM scores ORDER BY id").fetchall()
    assert after != before
    assert after == [
        (p,) for p in refit.score_rows(con, "scored", keys=["id"])["p_yes"].to_pylist()
    ]


def test_a_process_reads_a_model_versions_literals_once(con):
    """The second scoring of a model version reads no parameter table; a re-fit (a new
    version) is read again."""
    statements: list[str] = []
    warehouse = connect(con, on_sql=statements.append)

    def parameter_reads() -> int:
        before = len(statements)
        wml.load(warehouse, "m").predict_proba(warehouse, SCORED)
        return sum('"wml"."m' in s and "_cpt" in s for s in statements[before:])

    wml.TAN().fit(warehouse, training(), "label", keys=["id"], name="m")
    assert parameter_reads() == 2  # the observed pairs and the parent rows
    assert parameter_reads() == 0
    wml.TAN(alpha=2.0).fit(warehouse, training(), "label", keys=["id"], name="m")
    assert parameter_reads() == 2


def test_a_tan_attribute_over_the_limits_joins_its_keyed_tables_only(con, monkeypatch):
    """A fitted TAN attribute over the limits joins its observed pairs, its parent values and
    its seen values (the unseen term a literal): three joins per child, one for the root."""
    fitted = wml.TAN().fit(con, training(), "label", keys=["id"], name="m")
    every = fitted.predict_proba(con, SCORED)
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_VALUES", 0)
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_PAIRS", 0)
    con.register("scored", SCORED)
    sql = fitted.sql(con, "scored", keys=["id"])
    assert sql.count(" JOIN ") == 1 + 3 * 3  # the root, three children (amount binned)
    assert "unseen" not in sql
    joined = fitted.predict_proba(con, SCORED)
    assert_same_probabilities(joined, every)
