"""A fitted model's few parameters written into its query as literals score exactly as the
joined parameter tables do: the same probabilities (1e-12) and the same predictions, for seen,
unseen and NULL values, unseen and NULL parent values, binned numeric attributes, impossible
classes (alpha = 0), views included."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from reader_cases import MODELS, SCORED, training

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.models.keyed_terms import literal_terms


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
    join: its seen values' pivot (its unseen term is a literal,
    models/keyed_terms/parameters.py)."""
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


def test_a_views_query_reads_tan_attributes_over_the_limits_by_joins_and_numbers_no_row(
    con, monkeypatch
):
    """A view's query (here the export) never numbers its rows, so that a filter on its output
    reaches the source: TAN attributes over the limits are read there from the resolved table,
    one join per attribute (models/keyed_terms/resolved.py; the sparse tables took three per child
    and one for the root; predict_proba reads them in long format:
    tests/scoring/test_long_format_scoring.py), with the same probabilities."""
    fitted = wml.TAN().fit(con, training(), "label", keys=["id"], name="m")
    every = fitted.predict_proba(con, SCORED)
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_VALUES", 0)
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_PAIRS", 0)
    con.register("scored", SCORED)
    sql = fitted.sql(con, "scored", keys=["id"])
    assert sql.count(" JOIN ") == 4 < 1 + 3 * 3
    assert "ROW_NUMBER" not in sql.upper()
    joined = fitted.predict_proba(con, SCORED)
    assert_same_probabilities(joined, every)
