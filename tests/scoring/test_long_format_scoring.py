"""A fitted model's many parameters read in long format (models/keyed_terms/long_terms.py, as
models/keyed_terms/parameters.py chooses for a query reading every row in scan order) score as its
literals do: the same probabilities (1e-12) and predictions for seen, unseen and NULL values,
unseen and NULL parent values, binned numeric attributes and impossible classes (alpha = 0);
the statement stays small: its joins do not grow with the attributes, its text not with the
parameters. A view's query and the export number no rows, so a filter reaches the source."""

from __future__ import annotations

import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
import sqlglot
from reader_cases import MODELS, SCORED, assert_same_scores, training

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.models.keyed_terms import literal_terms
from warehouse_ml.sqlgen.dialects import KNOWN_DIALECTS


def long_format(monkeypatch) -> None:
    """Every attribute of a fitted model read in long format by a numbered query."""
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_CELLS", 0)


@pytest.mark.parametrize("model", MODELS, ids=repr)
def test_long_format_equals_the_literals(con, monkeypatch, model):
    fitted = model.fit(con, training(), "label", keys=["id"], name="m")
    literal = fitted.score_rows(con, SCORED, keys=["id"])
    long_format(monkeypatch)
    long = fitted.score_rows(con, SCORED, keys=["id"])
    assert_same_scores(long, literal)
    con.register("scored_rows", SCORED)
    con.execute("CREATE OR REPLACE TABLE scored AS SELECT * FROM scored_rows")
    view = fitted.create_view(con, "long_scores", "scored", keys=["id"])
    from_view = con.sql(f"SELECT * FROM {view} ORDER BY id").to_arrow_table()
    assert_same_scores(from_view, literal)


def test_the_export_numbers_no_row_and_scores_as_the_literals_in_every_dialect(con, monkeypatch):
    """An export is a view's query: however many parameters, its rows are not numbered (a
    filter on its output reaches the source) and it scores as the literals do."""
    fitted = wml.TAN(numeric=["amount"]).fit(con, training(), "label", keys=["id"], name="m")
    con.register("scored_rows", SCORED)
    con.execute("CREATE OR REPLACE TABLE scored AS SELECT * FROM scored_rows")
    literal = fitted.score_rows(con, "scored", keys=["id"])
    long_format(monkeypatch)
    for dialect in KNOWN_DIALECTS:
        text = fitted.sql(con, "scored", keys=["id"], dialect=dialect)
        assert "wml_summed" not in text and "ROW_NUMBER" not in text.upper()
        sqlglot.parse(text, read=dialect)
    got = con.sql(fitted.sql(con, "scored", keys=["id"], dialect="duckdb")).to_arrow_table()
    assert_same_scores(got.sort_by("id"), literal)


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN], ids=["nb", "tan"])
def test_a_key_lookup_in_a_view_of_a_model_over_the_budget_reads_one_source_row(con, kind):
    """A soybean-sized model (over the literal budget) behind a view: the view numbers no
    rows (a numbered view scored every row for a key lookup: 0.25 s against 0.02 s on 300,000
    rows), a filter on its key reaches the source scan, and the row scores as score_rows."""
    con.register("rows", wide(35, 7, 19, 683))
    con.execute("CREATE OR REPLACE TABLE t AS SELECT * FROM rows")
    fitted = kind().fit(con, "t", "label", keys=["id"], name="m")
    view = fitted.create_view(con, "big_scores", "t", keys=["id"])
    definition = con.sql("SELECT sql FROM duckdb_views() WHERE view_name = 'big_scores'")
    assert "ROW_NUMBER" not in definition.fetchall()[0][0].upper()
    plan = con.sql(f"EXPLAIN ANALYZE SELECT * FROM {view} WHERE id = 42").fetchall()[0][1]
    scanned = [
        int(n.replace(",", ""))
        for n in re.findall(r"Table: memory\.main\.t\s.*?([\d,]+) rows?\s", plan, flags=re.S)
    ]
    assert scanned and max(scanned) <= 1, plan
    one = con.sql(f"SELECT * FROM {view} WHERE id = 42").to_arrow_table()
    every = fitted.score_rows(con, "t", keys=["id"])
    assert_same_scores(one, every.filter(pc.equal(every["id"], 42)))


def wide(n_attributes: int, n_values: int, n_classes: int, rows: int, seed: int = 5) -> pa.Table:
    """``n_attributes`` text attributes of ``n_values`` values each (some NULL), each but the
    first a noisy copy of the one before (a chain TAN finds), and ``n_classes`` classes."""
    rng = np.random.default_rng(seed)
    label = rng.integers(0, n_classes, rows)
    columns: dict[str, list] = {"id": list(range(rows))}
    previous = (label + rng.integers(0, 2, rows)) % n_values
    for j in range(n_attributes):
        noisy = np.where(rng.random(rows) < 0.3, rng.integers(0, n_values, rows), previous)
        columns[f"a{j}"] = [None if rng.random() < 0.03 else f"v{v}" for v in noisy]
        previous = noisy
    columns["label"] = [f"c{c}" for c in label]
    return pa.table(columns)


def predict_statement(con, model) -> str:
    """The statement a predict_proba of the fitted ``model`` runs."""
    statements: list[str] = []
    warehouse = connect(con, on_sql=statements.append)
    model.predict_proba(warehouse, "t")
    return max(statements, key=len)


@pytest.mark.parametrize("n_attributes", [12, 24])
def test_tan_children_over_the_limits_cost_no_join_each(con, monkeypatch, n_attributes):
    """TAN children over the literal limits (3 values under 3-valued parents: 9 pairs) are
    read from the unpivoted rows, the root (3 values) as literals: the same 6 joins for 12
    attributes or 24 (the unpivot, one per level of the children's chain, the sums'), where
    the joined reader took 3 per child (33 and 69)."""
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_PAIRS", 8)
    con.register("rows", wide(n_attributes, 3, 2, 300))
    con.execute("CREATE OR REPLACE TABLE t AS SELECT * FROM rows")
    fitted = wml.TAN().fit(con, "t", "label", keys=["id"], name="m")
    joins = predict_statement(con, fitted).count(" JOIN ")
    assert joins == 1 + (1 + 4) < n_attributes


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN], ids=["nb", "tan"])
def test_a_soybean_sized_model_scores_by_a_small_statement(con, kind):
    """35 attributes of 7 values and 19 classes (soybean's shape): the statement of its
    predict_proba stays under 40,000 characters (literals: 182 KB for Naive Bayes, 711 KB for
    TAN on soybean) and scores as the literals do."""
    con.register("rows", wide(35, 7, 19, 683))
    con.execute("CREATE OR REPLACE TABLE t AS SELECT * FROM rows")
    fitted = kind().fit(con, "t", "label", keys=["id"], name="m")
    assert len(predict_statement(con, fitted)) < 40_000
    long = fitted.score_rows(con, "t", keys=["id"])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(literal_terms, "MAX_LITERAL_CELLS", 10**9)
        literal = fitted.score_rows(con, "t", keys=["id"])
        assert len(predict_statement(con, fitted)) > 100_000
    assert_same_scores(long, literal)
