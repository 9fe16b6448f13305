"""TAN's high-cardinality refusal comes before any pair count (fit and cross-validation)."""

from __future__ import annotations

import warnings

import pytest

import warehouse_ml as wml
from warehouse_ml import crossval, validation
from warehouse_ml.errors import HighCardinalityError, HighCardinalityWarning

N_IDS = 2 * validation.WARN_CATEGORIES


def _identifier_table(con, numeric: bool = False) -> str:
    """``ids``: an integer key ``k``, an identifier-like string ``id`` (one value per row), two
    low-cardinality attributes, [a float ``x``,] and a binary class."""
    extra = ", CAST(i % 7 AS DOUBLE) / 3 AS x" if numeric else ""
    name = "ids_x" if numeric else "ids"
    con.execute(
        f"CREATE TABLE {name} AS SELECT i AS k, 'id' || i AS id, "
        "CASE WHEN i % 3 = 0 THEN 'a' ELSE 'b' END AS g, 'h' || (i % 4) AS h, "
        f"CASE WHEN i % 2 = 0 THEN 'y' ELSE 'n' END AS cls{extra} FROM range({N_IDS}) r(i)"
    )
    return name


REFUSAL = (
    rf"categorical column 'id' of ids(_x)? has {N_IDS} distinct values in {N_IDS} training rows "
    r"\(most values occur once, like an identifier\)"
)


def _counted_pairs(statements: list[str]) -> bool:
    """Whether any statement wrote or read a pair-count table (pair_counts, fold_pair_counts)."""
    return any("pair_counts" in s for s in statements)


def test_fit_refuses_an_identifier_before_counting_pairs(con):
    table = _identifier_table(con)
    statements: list[str] = []
    warehouse = wml.connect(con, on_sql=statements.append)
    with pytest.raises(HighCardinalityError, match=REFUSAL):
        wml.TAN().fit(warehouse, table, "cls", keys=["k"])
    assert any("_categorical" in s for s in statements)  # refused after the counts ...
    assert not _counted_pairs(statements)  # ... and before any pair count
    tables = con.sql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'wml'")
    assert {r[0] for r in tables.fetchall()} == {"models", "views"}  # its tables were dropped
    statements.clear()
    with pytest.warns(HighCardinalityWarning) as caught:
        model = wml.TAN().fit(
            warehouse, table, "cls", keys=["k"], allow_high_cardinality=True, name="allowed"
        )
    assert _counted_pairs(statements)
    assert model.feature_names_in_ == ["id", "g", "h"]
    assert [w.filename for w in caught] == [__file__]  # warned once, at the caller


@pytest.mark.parametrize("numeric", [False, True], ids=["all-folds-at-once", "fold-by-fold"])
def test_cross_validation_refuses_an_identifier_before_counting_pairs(con, numeric):
    table = _identifier_table(con, numeric)
    statements: list[str] = []
    warehouse = wml.connect(con, on_sql=statements.append)
    with pytest.raises(HighCardinalityError, match=REFUSAL):
        crossval.cross_validate(warehouse, table, "cls", wml.TAN(), folds=3, key="k")
    assert not _counted_pairs(statements)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # without the identifier: no warning at all
        crossval.cross_validate(
            warehouse, table, "cls", wml.TAN(), folds=3, key="k", features=["g", "h"]
        )
    statements.clear()
    with pytest.warns(HighCardinalityWarning) as caught:
        evaluation = crossval.cross_validate(
            warehouse, table, "cls", wml.TAN(), folds=3, key="k", allow_high_cardinality=True
        )
    assert _counted_pairs(statements)
    assert evaluation.accuracy().n == N_IDS
    assert [w.filename for w in caught] == [__file__]  # once for all folds, at the caller
