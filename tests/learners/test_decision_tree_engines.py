"""A decision tree on PostgreSQL and Spark: the same tree as on DuckDB (every split, threshold
and count), the same probabilities, and the SQL exported from the DuckDB model gives the same
predictions when the other engine runs it."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import warehouse_ml as wml
from warehouse_ml.engines import connect
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName

pytestmark = pytest.mark.engines

TABLE = "wml_tree_data"
SETTINGS = [
    {"bins": None, "splits": "binary", "criterion": "entropy", "pruning": "none", "max_depth": 3},
    {"bins": 8, "splits": "multiway", "criterion": "gain_ratio", "alpha": 1.0, "max_depth": 3},
    {"bins": 8, "splits": "binary", "criterion": "gini", "pruning": "reduced_error", "key": "id"},
]
"""Every kind of split, both kinds of threshold and reduced-error pruning (its held-out rows
by the MD5 of the key); Spark (whose every statement takes a second or more) grows the first
and the last only."""


def rows(n: int = 240, seed: int = 4) -> pa.Table:
    """Full-precision doubles (their text must read back exactly on every engine), a text
    attribute and an integer code, both with NULLs, three classes."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    colour[rng.random(n) < 0.1] = None
    code = rng.integers(0, 4, n).astype(object)
    code[rng.random(n) < 0.05] = None
    y = np.where(x > 0.3, "a", np.where(colour == "red", "b", "c"))
    y = np.where(rng.random(n) < 0.1, rng.choice(["a", "b", "c"], n), y)
    return pa.table(
        {"id": np.arange(n), "x": x, "colour": pa.array(colour.tolist(), pa.string()),
         "code": pa.array(code.tolist(), pa.int64()), "y": y}
    )  # fmt: skip


def load(native, table: pa.Table) -> None:
    warehouse = connect(native)
    registered = warehouse.register_arrow(table)
    try:
        warehouse.run("drop_table", table=TableName((TABLE,)))
        warehouse.run_tree(
            templates.create_table_as(
                TableName((TABLE,)), templates.build("select_all", source=registered)
            )
        )
    finally:
        warehouse.unregister(registered)


def native_of(engine: str, request):
    if engine == "postgres":
        psycopg = pytest.importorskip("psycopg")
        return psycopg.connect(request.getfixturevalue("postgres_conninfo"), autocommit=True)
    return request.getfixturevalue("spark_sessions").local()


def matrix(table: pa.Table) -> np.ndarray:
    return np.column_stack([c.to_numpy() for c in table.columns])


@pytest.mark.parametrize("engine", ["postgres", "spark"])
def test_the_same_tree_and_predictions_on_another_engine(con, request, engine):
    data = rows()
    load(con, data)
    native = native_of(engine, request)
    load(native, data)
    for i, settings in enumerate(SETTINGS[::2] if engine == "spark" else SETTINGS):
        options = {"features": ["x", "colour", "code"], "categorical": ["code"]}
        here = wml.DecisionTree(**settings).fit(con, TABLE, "y", name=f"t{i}", **options)
        there = wml.DecisionTree(**settings).fit(native, TABLE, "y", name=f"t{i}", **options)
        assert there.record.state.learned.root.to_json() == here.record.state.learned.root.to_json()
        theirs = there.score_rows(native, TABLE, keys=["id"]).sort_by("id")
        ours = here.score_rows(con, TABLE, keys=["id"]).sort_by("id")
        assert theirs["prediction"].to_pylist() == ours["prediction"].to_pylist()
        np.testing.assert_allclose(
            matrix(theirs.select(["p_a", "p_b", "p_c"])), matrix(ours.select(["p_a", "p_b", "p_c"])),
            rtol=0, atol=1e-12,
        )  # fmt: skip
        dialect = connect(native).dialect
        exported = here.sql(con, TABLE, keys=["id"], dialect=dialect)
        got = connect(native).fetch_text(exported).sort_by("id")
        expected = here.predict(con, TABLE, keys=["id"]).sort_by("id")
        assert got["prediction"].to_pylist() == expected["prediction"].to_pylist()
        np.testing.assert_allclose(
            matrix(got.select(["p_a", "p_b", "p_c"])),
            matrix(here.predict_proba(con, data)),
            rtol=0, atol=1e-12,
        )  # fmt: skip
