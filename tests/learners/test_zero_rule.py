"""ZeroR (tests/extra_families/zero_rule/), the family written outside the library, against
its oracle: scikit-learn's ``DummyClassifier(strategy="prior")`` for every row, with and
without weights, and Weka's ZeroR (counts starting at 1) with ``alpha=1``."""

from __future__ import annotations

import extra_families
import numpy as np
import pyarrow as pa
import pytest
from sklearn.dummy import DummyClassifier

import warehouse_ml as wml
from warehouse_ml.models import kinds


@pytest.fixture(autouse=True)
def zero_rule():
    with extra_families.registered():
        yield kinds.named("zeror").load()


def rows(n: int = 50) -> pa.Table:
    rng = np.random.default_rng(11)
    return pa.table(
        {
            "x": pa.array(rng.normal(size=n)),
            "w": pa.array(rng.integers(1, 5, n).astype(float)),
            "y": pa.array([["no", "yes", "maybe"][v] for v in rng.integers(0, 3, n)]),
        }
    )


def fitted_probabilities(con, model, table, **options) -> np.ndarray:
    model.fit(con, table, "y", name="zr", **options)
    got = model.predict_proba(con, table)
    return np.column_stack([c.to_numpy() for c in got.columns])


@pytest.mark.parametrize("weighted", [False, True])
def test_probabilities_are_scikit_learns_prior_dummy(con, zero_rule, weighted):
    table = rows()
    y = np.array(table.column("y").to_pylist())
    weights = table.column("w").to_numpy() if weighted else None
    options = {"sample_weight": "w"} if weighted else {}
    got = fitted_probabilities(con, zero_rule(), table, **options)
    oracle = DummyClassifier(strategy="prior").fit(np.zeros((len(y), 1)), y, weights)
    expected = oracle.predict_proba(np.zeros((len(y), 1)))  # classes in sorted order, as ours
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-15)


def test_alpha_one_is_wekas_zero_r(con, zero_rule):
    table = rows()
    labels, counts = np.unique(table.column("y").to_pylist(), return_counts=True)
    model = zero_rule(alpha=1.0)
    got = fitted_probabilities(con, model, table)
    expected = (counts + 1) / (counts.sum() + len(labels))
    np.testing.assert_allclose(got, np.tile(expected, (table.num_rows, 1)), rtol=0, atol=1e-15)
    assert model.classes_ == list(labels)
    with pytest.raises(wml.ParameterError, match="alpha"):
        zero_rule(alpha=-1.0)
