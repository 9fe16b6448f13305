"""Cross-validation scores every fold's rows in long format (models/keyed_terms/long_terms.py): the
rows unpivoted to one row per attribute, one join per level of the fallback chain, each class's
terms summed per row and joined back on the row's key.

The oracle is each fold's model fitted from scratch on its training rows (with their weights)
and scored by the fitted model's own reader (literals or joins): the pooled out-of-fold
probabilities must be the same, NULL where they are NULL, in the cases the long format treats
on its own: a row whose every attribute is NULL (no row in the summed relation: its terms are
0), a value its fold's model never saw, a gapped integer code (compared as text), a
zero-probability parameter (alpha = 0: an impossible class, probability 0), and weighted
rows. The query's joins do not grow
with the attributes, nor its size with the attributes times the classes.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

import warehouse_ml as wml
from warehouse_ml.evaluation import splits

TOLERANCE = 1e-12
LABELS = ["c0", "c1", "c2"]


def _table(n: int = 300, seed: int = 5) -> pa.Table:
    """Three classes; ``a`` text, ``g`` gapped integer codes (0, 10, 100), ``u`` text with two
    values seen on one row each (only in that row's held-out fold), NULLs in each, every
    attribute NULL on every 29th row, and integer weights ``w``."""
    rng = np.random.default_rng(seed)
    y = rng.choice(LABELS, size=n, p=[0.5, 0.3, 0.2])
    code = np.searchsorted(LABELS, y)
    a = [f"a{(c + rng.integers(0, 2)) % 3}" for c in code]
    g = np.array([0, 10, 100])[(code + (rng.random(n) < 0.25)) % 3].tolist()
    u = [f"u{c}" for c in code]
    u[7], u[150] = "rare7", "rare150"
    blank = np.arange(n) % 29 == 0

    def with_nulls(values: list, rate: float) -> list:
        return [
            None if empty or rng.random() < rate else v
            for v, empty in zip(values, blank, strict=True)
        ]

    return pa.table(
        {
            "id": np.arange(n) * 3 + 2,
            "a": with_nulls(a, 0.1),
            "g": pa.array(with_nulls(g, 0.1), pa.int64()),
            "u": with_nulls(u, 0.05),
            "w": pa.array(rng.integers(1, 4, n), pa.int64()),
            "y": y,
        }
    )


def _assert_same(got: pa.Array, expected: pa.Array, where: str) -> None:
    assert pc.is_null(got).to_pylist() == pc.is_null(expected).to_pylist(), where
    np.testing.assert_allclose(
        got.to_numpy(zero_copy_only=False),
        expected.to_numpy(zero_copy_only=False),
        rtol=0,
        atol=TOLERANCE,
        err_msg=where,
    )


@pytest.mark.parametrize(
    "model",
    [
        wml.NaiveBayes(),
        wml.NaiveBayes(alpha=0.0, prior_alpha=1.0),
        wml.TAN(),
        wml.TAN(alpha=0.0, prior_alpha=1.0),
    ],
    ids=["nb", "nb-alpha-0", "tan", "tan-alpha-0"],
)
@pytest.mark.parametrize("weight", [None, "w"])
def test_long_format_equals_fitting_each_fold(con, model, weight):
    data = _table()
    con.register("data", data)
    con.execute("CREATE TABLE data_t AS SELECT * FROM data")
    statements: list[str] = []
    warehouse = wml.connect(con, on_sql=statements.append)
    features = ["a", "g", "u"]
    ev = wml.cross_validate(
        warehouse, "data_t", "y", model, folds=4, seed=2, key="id", features=features,
        sample_weight=weight,
    )  # fmt: skip
    scoring = [s for s in statements if s.startswith("CREATE") and "_predictions_" in s]
    assert len(scoring) == 1  # every fold scored by one statement
    pooled = ev.to_arrow()
    blank = [i for i in range(data.num_rows) if i % 29 == 0]
    assert set(pooled["id"].to_pylist()) >= {data["id"][i].as_py() for i in blank}
    if model.alpha == 0:  # a seen value never counted with a class makes the class impossible
        assert any(pc.any(pc.equal(pooled[f"p_{c}"], 0.0)).as_py() for c in LABELS)

    split = splits.assign_folds(
        con, "data_t", folds=4, seed=2, key="id", stratify="y", keep_columns=True
    )
    assigned = dict(con.execute(f"SELECT id, fold FROM {split.table}").fetchall())
    assert assigned == dict(zip(pooled["id"].to_pylist(), pooled["fold"].to_pylist(), strict=True))
    unseen = {assigned[data["id"][i].as_py()] for i in (7, 150)}
    assert unseen  # each rare value is held out with its row, unseen by its fold's model
    for f in range(4):
        con.execute(
            f"CREATE OR REPLACE VIEW train_f AS SELECT * EXCLUDE (fold) FROM {split.table} "
            f"WHERE fold <> {f}"
        )
        con.execute(
            f"CREATE OR REPLACE VIEW test_f AS SELECT * FROM {split.table} WHERE fold = {f} "
            "ORDER BY id"
        )
        scratch = type(model)(**model.get_params()).fit(
            con, "train_f", "y", features=features, sample_weight=weight, name=f"scratch{f}"
        )
        expected = scratch.predict_proba(con, "test_f")
        got = pooled.filter(pc.equal(pooled["fold"], f)).sort_by("id")
        assert got.num_rows == expected.num_rows
        for label in LABELS:
            _assert_same(got[f"p_{label}"], expected[f"p_{label}"], f"fold {f} p_{label}")


def _wide(n_attributes: int, n_classes: int, n: int = 200, seed: int = 1) -> pa.Table:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    columns = {"id": np.arange(n)}
    for j in range(n_attributes):
        columns[f"x{j}"] = [f"v{(c + rng.integers(0, 3)) % 5}" for c in y]
    columns["y"] = [f"k{c}" for c in y]
    return pa.table(columns)


@pytest.mark.parametrize("kind", [wml.NaiveBayes, wml.TAN])
def test_the_scoring_statement_does_not_grow_with_attributes_times_classes(con, kind):
    """Joins: one per level of the fallback chain (and the prior's and the sums'), whatever the
    number of attributes; size: the attributes and the classes added, not multiplied."""
    scoring = {}
    for n_attributes, n_classes in ((4, 2), (30, 2), (4, 12), (30, 12)):
        con.register("wide", _wide(n_attributes, n_classes))
        statements: list[str] = []
        warehouse = wml.connect(con, on_sql=statements.append)
        wml.cross_validate(warehouse, "wide", "y", kind(), folds=3, key="id").drop()
        (statement,) = [s for s in statements if s.startswith("CREATE") and "_predictions_" in s]
        scoring[n_attributes, n_classes] = statement
    joins = {shape: s.upper().count(" JOIN ") for shape, s in scoring.items()}
    assert joins[4, 2] == joins[30, 2] and joins[4, 12] == joins[30, 12], joins
    size = {shape: len(s) for shape, s in scoring.items()}
    grown = (size[30, 12] - size[4, 12]) - (size[30, 2] - size[4, 2])
    assert grown < (size[30, 2] - size[4, 2]) / 2, size  # per attribute: the same with 12 classes
