"""An engine that inlines steps (``MATERIALIZED_STEPS``, PostgreSQL) gets the scoring query's
scores and posterior fenced ``AS MATERIALIZED`` (models/scoring/query.py), and the same
probabilities and decisions: checked on DuckDB, which reads the fence too."""

from __future__ import annotations

import numpy as np
import pytest
import sqlglot
from sqlglot import exp

import warehouse_ml as wml
from warehouse_ml.engines import DuckDBWarehouse, connect
from warehouse_ml.models.scoring import compiled
from warehouse_ml.models.scoring.normalise import POSTERIOR, SCORES
from warehouse_ml.synthetic import tan_data


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
def test_fenced_steps_give_the_same_scores(con, monkeypatch, kind):
    data = tan_data(400, 5, n_classes=4, strings=True, seed=3)
    model = kind().fit(con, data, "class", name="m")
    loss = [[0.0 if i == j else 1.0 + i + 2 * j for j in range(4)] for i in range(4)]
    plain = model.predict_proba(con, data)
    decided = model.score_rows(con, data, keys=[], loss=loss)
    statements: list[str] = []
    monkeypatch.setattr(DuckDBWarehouse, "MATERIALIZED_STEPS", True)
    compiled._COMPILED.clear()
    warehouse = connect(con, on_sql=statements.append)
    fenced = model.predict_proba(warehouse, data)
    for name in plain.column_names:
        np.testing.assert_allclose(fenced[name], plain[name], rtol=0, atol=1e-12)
    assert model.score_rows(warehouse, data, keys=[], loss=loss).equals(decided)
    ctes = [
        cte
        for text in statements
        if POSTERIOR in text
        for cte in sqlglot.parse_one(text, read="duckdb").find_all(exp.CTE)
    ]
    assert {c.alias for c in ctes if c.args.get("materialized")} == {SCORES, POSTERIOR}
