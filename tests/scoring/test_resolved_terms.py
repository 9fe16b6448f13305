"""A fitted TAN's fallback chains resolved per (parent value, value)
(models/keyed_terms/resolved.py) score a view's query with one join per attribute over the literal
limits, and exactly as the literals, the joins on the sparse tables and predict_proba's long format
do (1e-12): seen, unseen and NULL values, unseen and NULL parent values, integer codes with gaps, a
binned numeric attribute, impossible classes (alpha = 0); a parent within the limits tells its seen
values by literals; a key filter on such a view still reaches the source."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import sqlglot
from reader_cases import SCORED, assert_same_scores, training

import warehouse_ml as wml
from warehouse_ml.models.keyed_terms import literal_terms, resolved
from warehouse_ml.sqlgen.dialects import KNOWN_DIALECTS

N = 300


def coded() -> pa.Table:
    """Integer codes with gaps (never placed in the lookup table), a chain TAN finds: ``g`` in
    {1, 3, 7}, ``h`` in {2, 5, 9, 11} mostly following ``g``, ``k`` text following ``h``."""
    rng = np.random.default_rng(3)
    g = rng.choice([1, 3, 7], N)
    h = np.where(rng.random(N) < 0.8, np.select([g == 1, g == 3], [2, 5], 9), 11)
    k = np.where(rng.random(N) < 0.75, np.char.add("t", h.astype(str)), "other")
    label = np.where((g == 3) ^ (rng.random(N) < 0.2), "yes", "no")

    def holes(values: np.ndarray) -> list:
        return [None if rng.random() < 0.06 else v for v in values.tolist()]

    return pa.table({"id": np.arange(N), "g": holes(g), "h": holes(h), "k": holes(k),
                     "label": label.tolist()})  # fmt: skip


CODED_SCORED = pa.table(
    {
        "id": list(range(8)),
        "g": [1, 3, 7, 2, None, 100, 3, 7],  # 2 and 100: unseen parent values of h
        "h": [2, 5, 9, 5, 11, 2, None, 4],  # 4: unseen
        "k": ["t2", "t5", "t9", "other", "t11", "never", "t5", None],
    }
)

CASES = {
    "mixed": (wml.TAN(), training, SCORED),
    "impossible": (wml.TAN(alpha=0.0, prior_alpha=0.0), training, SCORED),
    "binned": (wml.TAN(numeric=["amount"]), training, SCORED),
    "codes": (wml.TAN(categorical=["g", "h"]), coded, CODED_SCORED),
}


def over_the_limits(patch: pytest.MonkeyPatch) -> None:
    patch.setattr(literal_terms, "MAX_LITERAL_VALUES", 0)
    patch.setattr(literal_terms, "MAX_LITERAL_PAIRS", 0)


@pytest.mark.parametrize("case", CASES, ids=str)
def test_a_view_reads_each_tan_attribute_over_the_limits_by_one_join(con, case):
    model, rows, scored = CASES[case]
    fitted = model.fit(con, rows(), "label", keys=["id"], name="m")
    assert fitted.record.state.learned.resolved == tuple(fitted.record.features)
    con.register("scored_rows", scored)
    con.execute("CREATE TABLE scored AS SELECT * FROM scored_rows")
    literal = fitted.score_rows(con, "scored", keys=["id"]).sort_by("id")
    assert fitted.sql(con, "scored", keys=["id"]).count(" JOIN ") == 0
    with pytest.MonkeyPatch.context() as patch:
        over_the_limits(patch)
        sql = fitted.sql(con, "scored", keys=["id"])
        assert sql.count(" JOIN ") == len(fitted.record.features)
        assert "ROW_NUMBER" not in sql.upper()
        view = fitted.create_view(con, "scores", "scored", keys=["id"])
        from_view = con.sql(f"SELECT * FROM {view} ORDER BY id").to_arrow_table()
        predictions = fitted.predict(con, "scored")["prediction"]  # numbered: long format
        numbered = fitted.predict_proba(con, "scored").append_column("prediction", predictions)
        patch.setattr(resolved, "MAX_RESOLVED_ROWS", 0)
        refit = model.fit(con, rows(), "label", keys=["id"], name="m")  # the view follows
        assert refit.record.state.learned.resolved == ()
        joined_sql = refit.sql(con, "scored", keys=["id"])
        joined = con.sql(f"SELECT * FROM {view} ORDER BY id").to_arrow_table()
    assert joined_sql.count(" JOIN ") == 1 + 3 * (len(fitted.record.features) - 1)
    assert_same_scores(from_view, literal)
    assert_same_scores(joined, literal)
    assert_same_scores(numbered, literal)


def test_a_parent_within_the_limits_tells_its_seen_values_by_literals(con, monkeypatch):
    """Root ``a`` (3 values) within the limits is read by literals, the children (pairs over 3)
    by one join each: ``a``'s children keyed on whether its value is one of its 3 seen ones
    (written as literals), ``b``'s on whether ``b``'s resolved row was found."""
    fitted = wml.TAN().fit(con, training(), "label", keys=["id"], name="m")
    con.register("scored", SCORED)
    literal = fitted.score_rows(con, "scored", keys=["id"])
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_PAIRS", 3)
    sql = fitted.sql(con, "scored", keys=["id"])
    assert fitted.parents_ == {"a": None, "b": "a", "c": "a", "amount": "b"}
    assert sql.count(" JOIN ") == 3 and " IN (" in sql
    assert_same_scores(fitted.score_rows(con, "scored", keys=["id"]), literal)


def test_a_view_over_the_literal_budget_reads_by_joins_and_exports_to_every_dialect(
    con, monkeypatch
):
    """Past the literal budget every resolved attribute is one join in a view's query (no
    literal CASE), and the export, which carries the resolved table as VALUES, parses in every
    dialect and scores as the literals do."""
    fitted = wml.TAN(numeric=["amount"]).fit(con, training(), "label", keys=["id"], name="m")
    con.register("scored_rows", SCORED)
    con.execute("CREATE TABLE scored AS SELECT * FROM scored_rows")
    literal = fitted.score_rows(con, "scored", keys=["id"])
    monkeypatch.setattr(literal_terms, "MAX_LITERAL_CELLS", 0)
    assert fitted.sql(con, "scored", keys=["id"]).count(" JOIN ") == 4
    for dialect in KNOWN_DIALECTS:
        sqlglot.parse(fitted.sql(con, "scored", keys=["id"], dialect=dialect), read=dialect)
    text = fitted.sql(con, "scored", keys=["id"], dialect="duckdb")
    assert_same_scores(con.sql(text).to_arrow_table().sort_by("id"), literal)
