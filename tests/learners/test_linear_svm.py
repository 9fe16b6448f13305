"""LinearSVM against scikit-learn's ``LinearSVC`` and ``CalibratedClassifierCV``.

The oracles are fitted on the design the model's rules describe, built in numpy by the linear
families' reference (tests/linear_reference.py): every level one-hot (NULL: all 0), numerics
standardised by the mean and population standard deviation (NULL: 0).

* Weights and decision values: ``LinearSVC(loss="squared_hinge", dual=False, C=C, tol=1e-12,
  max_iter=10**6)``, to 1e-5 (liblinear's trust-region Newton stops at a gradient of about
  1e-5; the model's finite Newton method ends on the exact minimum, its gradient checked here
  in numpy to 1e-9).
* Probabilities: ``CalibratedClassifierCV(LinearSVC(...), method="sigmoid", ensemble=False,
  cv=folds)`` with the folds ``wml.assign_folds`` deals (the same MD5 ranking; without a key,
  the scan order dealt round), as a list of (train, test) index arrays; to 1e-5, what is left
  of liblinear's and L-BFGS's tolerances. Weighted fits: test_linear_svm_weights.py.
"""

from __future__ import annotations

import duckdb
import numpy as np
import pyarrow as pa
import pytest
from linear_reference import (
    DATA_SETS,
    FEATURES,
    NUMERIC,
    decisions,
    design,
    mixed,
    probabilities,
    shared,
)
from sklearn.calibration import CalibratedClassifierCV
from sklearn.svm import LinearSVC

import warehouse_ml as wml
from warehouse_ml.errors import ColumnError, ParameterError

WEIGHTS = 1e-5
PROBABILITIES = 1e-5
FOLDS = 5


def svc(C: float) -> LinearSVC:
    return LinearSVC(loss="squared_hinge", dual=False, C=C, tol=1e-12, max_iter=10**6)


def folds(con, table: pa.Table, key: str | None) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) row indices of the model's folds of ``table``: ``wml.assign_folds``'
    with a key; without one, the rows' scan order dealt round (fold = row number modulo k)."""
    if key is None:
        fold = np.arange(table.num_rows) % FOLDS
        return [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(FOLDS)]
    split = wml.assign_folds(con, table, folds=FOLDS, key=key)
    rows = split.to_arrow(con)
    split.drop(con)
    position = {k: i for i, k in enumerate(table[key].to_pylist())}
    index = np.array([position[k] for k in rows[key].to_pylist()])
    fold = np.empty(table.num_rows, int)
    fold[index] = rows["fold"].to_numpy()
    return [(np.flatnonzero(fold != f), np.flatnonzero(fold == f)) for f in range(FOLDS)]


def gradient(X: np.ndarray, y: np.ndarray, w: np.ndarray, C: float) -> np.ndarray:
    """The primal objective's gradient at ``w`` (intercept first) for targets y in {-1, 1}."""
    design_ = np.column_stack([np.ones(len(X)), X])
    o = design_ @ w
    margin = y * o < 1
    return w + 2.0 * C * design_[margin].T @ (o[margin] - y[margin])


def check(con, model, table, X, y, cv, C) -> None:
    """Weights (and their gradient), decision values and probabilities against the oracles."""
    sk = svc(C).fit(X, y)
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=WEIGHTS)
    np.testing.assert_allclose(model.intercept_, sk.intercept_, rtol=0, atol=WEIGHTS)
    scored = list(model.classes_) if len(model.classes_) > 2 else [model.classes_[1]]
    for row, label in enumerate(scored):
        w = np.r_[model.intercept_[row], model.coef_[row]]
        target = np.where(np.array(y) == label, 1.0, -1.0)
        assert np.max(np.abs(gradient(X, target, w, C))) < 1e-9
    np.testing.assert_allclose(
        decisions(model, con, table), sk.decision_function(X), rtol=0, atol=WEIGHTS
    )
    calibrated = CalibratedClassifierCV(svc(C), method="sigmoid", ensemble=False, cv=cv)
    np.testing.assert_allclose(
        probabilities(model, con, table),
        calibrated.fit(X, y).predict_proba(X),
        rtol=0,
        atol=PROBABILITIES,
    )


@pytest.mark.parametrize(("classes", "C"), [(2, 1.0), (3, 1.0), (2, 0.05), (3, 20.0)])
def test_weights_decision_values_and_probabilities_equal_scikit_learns(con, classes, C):
    table = mixed(classes=classes)
    model = wml.LinearSVM(C=C, key="id").fit(
        con, table, "y", features=FEATURES, categorical=["code"]
    )
    X, names = design(table, table, FEATURES, NUMERIC)
    assert model.design_names_ == names and model.converged_
    check(con, model, table, X, table["y"].to_pylist(), folds(con, table, "id"), C)


def test_weights_and_probabilities_agree_to_1e12_across_runs_and_thread_counts():
    """The passes sum every problem's rows grouped by problem, in DOUBLE in the engine's order
    (docs/ARCHITECTURE.md): not bit-identical across threads, but the same to 1e-12."""
    table = mixed(n=3000, classes=3, seed=9)
    fitted = []
    for threads in (1, 2, 2):
        with duckdb.connect() as con:
            con.execute(f"SET threads = {threads}")
            model = wml.LinearSVM(key="id").fit(
                con, table, "y", features=FEATURES, categorical=["code"]
            )
            fitted.append((model.coef_, model.intercept_, probabilities(model, con, table)))
    for other in fitted[1:]:
        for mine, theirs in zip(fitted[0], other, strict=True):
            np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-12)


def test_an_attributes_part_is_its_share_of_the_decision_value(con):
    """Binary: each attribute's evidence for class 1 against class 0 is its coefficients times
    its design values, the base part (no attribute) the intercept, and they add up to the
    decision value."""
    table = mixed(n=80, seed=4)
    model = wml.LinearSVM(key="id").fit(con, table, "y", features=FEATURES, categorical=["code"])
    X, names = design(table, table, FEATURES, NUMERIC)
    decision = decisions(model, con, table)
    labels = list(model.classes_)
    rows = model.explain(con, table, keys=["id"]).to_pylist()
    totals = np.zeros(table.num_rows)
    for row in rows:
        sign = 1.0 if labels.index(row["class"]) == 1 else -1.0
        if row["attribute"] is None:
            part = model.intercept_[0]
        else:
            columns = [j for j, n in enumerate(names) if n.split("=")[0] == row["attribute"]]
            part = model.coef_[0, columns] @ X[row["id"], columns]
        assert row["evidence"] == pytest.approx(sign * part, abs=1e-12)
        totals[row["id"]] += sign * row["evidence"]
    assert len(rows) == 80 * (1 + len(FEATURES))
    np.testing.assert_allclose(totals, decision, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("x1", "has type double"),
        ("code", "is not unique: 400 rows, 4 distinct keys"),
        ("y", "is the target"),
        ("colour", "is also a feature"),
    ],
)
def test_a_key_that_cannot_deal_the_folds_is_refused(con, key, message):
    with pytest.raises(ColumnError, match=f"key column '{key}' of .*{message}"):
        wml.LinearSVM(key=key).fit(con, mixed(), "y", features=["x2", "colour"])


@pytest.mark.parametrize(
    ("setting", "value"),
    [("C", 0), ("C", float("inf")), ("max_iter", 0), ("tol", -1.0), ("folds", 1), ("key", 3)],
)
def test_settings_out_of_range_are_refused(setting, value):
    with pytest.raises(ParameterError, match=setting):
        wml.LinearSVM(**{setting: value})


@pytest.mark.slow
@pytest.mark.parametrize(("name", "numeric", "rows"), [d for d in DATA_SETS if d[0] != "vote.csv"])
def test_shared_data_sets_equal_scikit_learn(con, datasets, name, numeric, rows):
    """Binary and multi-class, categorical (with NULLs), numeric and mixed; the folds dealt
    by the rows' scan order (no key)."""
    table = shared(con, datasets, name, numeric, rows)
    *features, target = table.column_names
    categorical = [f for f in features if f not in numeric]
    model = wml.LinearSVM().fit(
        con, table, target, numeric=list(numeric) or None, categorical=categorical or None
    )
    X, names = design(table, table, features, list(numeric))
    assert model.design_names_ == names
    check(con, model, table, X, table[target].to_pylist(), folds(con, table, None), 1.0)


def test_a_loss_far_heavier_than_the_penalty_on_collinear_columns_takes_least_norm_steps(con):
    """C=1e20 leaves the generalised Hessian I + 2C sum x x' singular to double precision
    along the design's null direction (a categorical attribute with no NULL: its indicators
    sum to the intercept's column). The optimum has no component along it (the penalty
    w . w / 2 prefers none, the loss cannot tell), which the least-norm Newton steps keep;
    checked in numpy: the loss is stationary and w is orthogonal to the null direction."""
    rng = np.random.default_rng(3)
    n = 80
    x = rng.normal(size=n)
    c = rng.choice(["b", "g", "r"], n)
    y = np.where(x + 0.8 * (c == "r") + rng.normal(size=n) > 0, "yes", "no")
    table = pa.table({"x": x, "c": c, "y": y})
    model = wml.LinearSVM(C=1e20).fit(con, table, "y")
    X, names = design(table, table, ["x", "c"], ["x"])
    assert names == ["x", "c=b", "c=g", "c=r"] and model.converged_
    w = np.r_[model.intercept_[0], model.coef_[0]]
    rows = np.column_stack([np.ones(n), X])
    target = np.where(y == "yes", 1.0, -1.0)
    o = rows @ w
    margin = target * o < 1
    assert np.max(np.abs(rows[margin].T @ (o[margin] - target[margin]))) < 1e-9
    null = np.array([1.0, 0.0, -1.0, -1.0, -1.0]) / 2.0
    assert abs(w @ null) < 1e-9 * np.linalg.norm(w)


def test_held_out_decision_values_all_equal_fit_the_sigmoid_as_scikit_learn():
    """Two rows, five folds: each of the two folds holding a row trains on the other row
    alone, whose SVM (the row's design x, target t: w = 2C t x / (1 + 2C |x|^2)) gives the
    held-out row x' the decision value 2C t x.x' / (1 + 2C |x|^2) = 0 (x = (1, +-1)). The
    sigmoid's Hessian is singular (A multiplies 0): its least-norm steps leave A at 0 and fit
    B, as scikit-learn's L-BFGS from the same start does (its _sigmoid_calibration)."""
    from sklearn.calibration import _sigmoid_calibration

    table = pa.table({"x": [1.0, 2.0], "y": ["a", "b"]})
    with duckdb.connect() as con:
        model = wml.LinearSVM().fit(con, table, "y")
        got = probabilities(model, con, table)
        decision = decisions(model, con, table)
    X, _ = design(table, table, ["x"], ["x"])
    sk = svc(1.0).fit(X, ["a", "b"])
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=WEIGHTS)
    rows = np.column_stack([np.ones(2), X])
    held_out = [
        2.0 * t * (rows[other] @ rows[held]) / (1.0 + 2.0 * (rows[other] @ rows[other]))
        for held, other, t in ((0, 1, 1.0), (1, 0, -1.0))
    ]
    np.testing.assert_allclose(held_out, 0.0, atol=1e-15)
    a, b = _sigmoid_calibration(np.array(held_out), np.array([0, 1]))
    positive = 1.0 / (1.0 + np.exp(a * decision + b))
    np.testing.assert_allclose(got, np.column_stack([1 - positive, positive]), atol=1e-9)
    np.testing.assert_allclose(model.sigmoids_, [[a, b]], atol=1e-9)
