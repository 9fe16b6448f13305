"""What the linear families (and k-NN, which shares their design) do with numbers their fit cannot
use: a NaN or +-inf training value, and values whose squares overflow double precision.

The design standardises each numeric attribute by its mean and population standard deviation
(models/learners/shared/design.py), from each class's exact moments (stats/moments.py) pooled
over the classes: the one computation of the fit that squares the attribute's own values. A
class's variance and the pooled variance must be finite doubles, so the standard deviation at
most sqrt(DBL_MAX), about 1.34e154; every later sum is over standardised values.
"""

from __future__ import annotations

import math
import sys

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from linear_reference import probabilities

import warehouse_ml as wml
from warehouse_ml.errors import DataError

LINEAR_KINDS = [
    wml.LogisticRegression,
    wml.LinearDiscriminant,
    wml.LinearSVM,
    wml.KNearestNeighbors,
]
KIND_IDS = [k.__name__ for k in LINEAR_KINDS]


def separable_enough(n: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A numeric ``x`` (standard normal), a categorical ``c`` and classes ``y`` that overlap."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    c = rng.choice(["r", "g", "b"], n)
    y = np.where(x + 0.5 * (c == "r") + rng.normal(size=n) > 0, "b", "a")
    return x, c, y


def table(x: np.ndarray, c: np.ndarray, y: np.ndarray) -> pa.Table:
    return pa.table({"x": pa.array(x, pa.float64()), "c": c, "y": y})


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf], ids=["nan", "inf", "-inf"])
@pytest.mark.parametrize("kind", LINEAR_KINDS, ids=KIND_IDS)
def test_a_non_finite_training_value_is_refused_naming_the_column(con, kind, bad):
    x, c, y = separable_enough()
    x[7] = bad
    with pytest.raises(
        DataError,
        match=r"numeric column 'x' of an Arrow table has non-finite values \(NaN or ±inf\) in "
        r"class '.'.*expected finite numbers",
    ):
        kind().fit(con, table(x, c, y), "y")


@pytest.mark.parametrize("kind", [*LINEAR_KINDS, wml.NaiveBayes], ids=[*KIND_IDS, "NaiveBayes"])
def test_values_whose_variance_overflows_are_refused_naming_the_column_and_the_fix(con, kind):
    """Values near 1e155: each class's variance is about 1e310 (the largest double is 1.8e308);
    Naive Bayes' Gaussians square the same values and are refused by the same check."""
    x, c, y = separable_enough()
    with pytest.raises(
        DataError,
        match=r"numeric column 'x' of an Arrow table has values too large to square in double "
        r"precision: its variance in class '.' is inf .*expected a standard deviation below "
        r"1.34e\+154 .*: scale the column",
    ):
        kind().fit(con, table(x * 1e155, c, y), "y")


@pytest.mark.parametrize("kind", LINEAR_KINDS, ids=KIND_IDS)
def test_a_pooled_variance_that_overflows_is_refused(con, kind):
    """Each class constant (variance 0), their means 3e154 apart: the pooled variance is
    about 2.2e308, more than the largest double."""
    y = np.array(["a", "b"] * 10)
    x = np.where(y == "a", 1.5e154, -1.5e154)
    with pytest.raises(
        DataError,
        match=r"numeric column 'x' of an Arrow table has values too large to square in double "
        r"precision: its variance over every training row is inf",
    ):
        kind().fit(con, pa.table({"x": x, "y": y}), "y")


@pytest.mark.parametrize("kind", LINEAR_KINDS, ids=KIND_IDS)
def test_values_below_the_bound_fit_as_the_column_scaled_down(kind):
    """Values near 1e154: the classes' variances (about 6e307) and the pooled one (8e307) are
    finite, so the design's scale is numpy's population standard deviation, and the
    standardised design, hence the model, is the one of the column divided by 1e154."""
    x, c, y = separable_enough()
    big, small = table(x * 1e154, c, y), table(x, c, y)
    with duckdb.connect() as con:
        model = kind().fit(con, big, "y")
        design = model.parameters(con)["design"].to_pylist()
        (numeric,) = [r for r in design if r["kind"] == "numeric"]
        assert numeric["scale"] == pytest.approx(np.std(x) * 1e154, rel=1e-14)
        assert numeric["scale"] < math.sqrt(sys.float_info.max)
        got = probabilities(model, con, big)
        expected = probabilities(kind().fit(con, small, "y"), con, small)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("kind", [wml.LogisticRegression, wml.LinearSVM], ids=["lr", "svm"])
def test_a_constant_column_under_uneven_weights_is_scaled_by_1_and_is_0(con, kind):
    """Each class's mean of a constant column is the constant exactly; pooled as shares of 1
    adding up to 1 - 1e-16 they left a variance of 1e-32, a scale of 1e-16 and a design column
    of +-1 where the constant should be 0 (the SVM gave it a weight of 0.14; found by
    tests/contract/test_family_properties.py)."""
    table = pa.table(
        {
            "x": [0.5, 0.0, 1.0, 0.5, 2.0, 0.0, 1.5, 0.5],
            "k": [1.0] * 8,
            "y": ["b", "b", "b", "a", "b", "a", "a", "a"],
            "w": [1e-6, 1e-6, 1e-6, 1e-6, 2.0, 0.25, 0.25, 0.25],
        }
    )
    model = kind().fit(con, table, "y", sample_weight="w")
    design = model.parameters(con)["design"].to_pylist()
    constant = next(r for r in design if r["attribute"] == "k")
    assert (constant["mean"], constant["scale"]) == (1.0, 1.0)
    position = model.design_names_.index("k")
    assert np.all(model.coef_[:, position] == 0.0)
