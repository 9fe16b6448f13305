"""An explanation's text is compiled once per process, model version, source schema and
options, as a prediction's is (models/scoring/compiled.py), and a later call reads its own
source: the same rows as a fresh build for that source."""

from __future__ import annotations

import pytest

import warehouse_ml as wml
from warehouse_ml.models.inspection import explaining
from warehouse_ml.models.scoring import compiled
from warehouse_ml.synthetic import tan_data


@pytest.fixture
def builds(monkeypatch) -> list[int]:
    """Counts the explanation queries built."""
    calls: list[int] = []
    original = explaining.explanation_query

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(explaining, "explanation_query", counted)
    return calls


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
def test_an_explanation_is_built_once_and_reads_each_calls_source(con, builds, kind):
    model = kind().fit(con, tan_data(300, 4, n_classes=3, strings=True, seed=1), "class")
    for seed, name in ((2, "t2"), (3, "t3")):
        con.register("rows", tan_data(40 + seed, 4, n_classes=3, strings=True, seed=seed))
        con.execute(f"CREATE TABLE {name} AS SELECT * FROM rows")
        con.unregister("rows")
    first = {name: model.explain(con, name, top=2) for name in ("t2", "t3")}
    assert len(builds) == 1
    assert [first["t2"].num_rows, first["t3"].num_rows] == [42 * 3, 43 * 3]
    for name, explained in first.items():
        compiled._COMPILED.clear()  # a fresh build for this source alone
        assert model.explain(con, name, top=2).equals(explained)
    assert len(builds) == 3
    model.explain(con, "t2", top=3)  # other options: another build
    assert len(builds) == 4
