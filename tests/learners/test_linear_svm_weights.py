"""A weighted LinearSVM against scikit-learn given the same weights as ``sample_weight``.

* Weights and decision values: ``LinearSVC(loss="squared_hinge", dual=False, tol=1e-12,
  max_iter=10**6)`` fitted with the rows' weights as ``sample_weight`` (``class_weight``'s
  factors included: ``compute_sample_weight``) on the design standardised by the weighted
  moments, to 1e-5. Two classes also equal ``LinearSVC(class_weight=...)``; with more,
  liblinear's one-vs-rest weighs only each problem's positive class by its class weight (its
  rest by 1), where the model weighs every row as its own class.
* Probabilities: ``CalibratedClassifierCV(LinearSVC(...), method="sigmoid", ensemble=False)``
  with ``sample_weight`` on the same folds, to 1e-5. The folds deal each row by its weight
  (models/learners/linear/svm/platt.py): in the model's order (the MD5 of ``'0:0:' || key``, or scan order)
  a row of weight w covers the unit slots [S, S + w), slot i in fold i mod k, so one row may
  have parts in several folds. The reference deals them here slot by slot, and gives
  scikit-learn one piece per (row, fold) of positive part: the piece is in that fold's test
  set with its part as weight, and the row's other pieces (its weight less the part) train
  that fold's SVM, as the model's folds do.
"""

from __future__ import annotations

import hashlib
import math

import numpy as np
import pyarrow as pa
import pytest
import sqlglot
from linear_reference import FEATURES, NUMERIC, decisions, design, mixed, probabilities
from sklearn.calibration import CalibratedClassifierCV
from sklearn.svm import LinearSVC
from sklearn.utils.class_weight import compute_sample_weight

import warehouse_ml as wml
from warehouse_ml.sqlgen import templates

TOLERANCE = 1e-5
FOLDS = 5


def svc(C: float, class_weight=None) -> LinearSVC:
    return LinearSVC(
        loss="squared_hinge", dual=False, C=C, tol=1e-12, max_iter=10**6, class_weight=class_weight
    )


def pieces(weights: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each (row, fold) piece of positive part: its row, fold and part, dealing the rows in
    ``order`` over consecutive unit slots, slot by slot."""
    rows, folds, parts = [], [], []
    start = 0.0
    for i in order:
        end = start + weights[i]
        part = np.zeros(FOLDS)
        for slot in range(math.floor(start), math.ceil(end)):
            part[slot % FOLDS] += min(end, slot + 1) - max(start, slot)
        for f in np.flatnonzero(part > 0):
            rows.append(i), folds.append(f), parts.append(part[f])
        start = end
    return np.array(rows), np.array(folds), np.array(parts)


def md5_order(table: pa.Table, key: str | None) -> np.ndarray:
    """The model's order of the rows: by the MD5 of ``'0:0:' || key``, or scan order."""
    if key is None:
        return np.arange(table.num_rows)
    digests = [hashlib.md5(f"0:0:{k}".encode()).hexdigest() for k in table[key].to_pylist()]
    return np.argsort(digests, kind="stable")


def weighted_table(classes: int) -> pa.Table:
    """The mixed data with fractional sample weights in ``w``, some of them 0."""
    table = mixed(classes=classes, seed=7)
    rng = np.random.default_rng(11)
    w = rng.uniform(0.2, 3.0, table.num_rows)
    w[rng.random(table.num_rows) < 0.03] = 0.0
    return table.set_column(table.schema.get_field_index("w"), "w", pa.array(w))


def check(con, model, table, key, C, sample, class_weight) -> None:
    """Weights, decision values and probabilities against the oracles (module docstring)."""
    y = np.array(table["y"].to_pylist())
    w = (np.ones(len(y)) if sample is None else sample) * compute_sample_weight(class_weight, y)
    X, names = design(table, table, FEATURES, NUMERIC, weight=w)
    assert model.design_names_ == names and model.converged_
    sk = svc(C).fit(X, y, sample_weight=w)
    if len(model.classes_) == 2:
        own = svc(C, class_weight).fit(X, y, sample_weight=sample)
        np.testing.assert_allclose(model.coef_, own.coef_, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(model.coef_, sk.coef_, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(model.intercept_, sk.intercept_, rtol=0, atol=TOLERANCE)
    np.testing.assert_allclose(
        decisions(model, con, table), sk.decision_function(X), rtol=0, atol=TOLERANCE
    )
    rows, folds, parts = pieces(w, md5_order(table, key))
    cv = [(np.flatnonzero(folds != f), np.flatnonzero(folds == f)) for f in range(FOLDS)]
    calibrated = CalibratedClassifierCV(svc(C), method="sigmoid", ensemble=False, cv=cv)
    calibrated.fit(X[rows], y[rows], sample_weight=parts)
    np.testing.assert_allclose(
        probabilities(model, con, table),
        calibrated.predict_proba(X),
        rtol=0,
        atol=TOLERANCE,
    )


@pytest.mark.parametrize(("classes", "key"), [(2, "id"), (3, None)])
def test_sample_weights_equal_scikit_learns(con, classes, key):
    table = weighted_table(classes)
    model = wml.LinearSVM(key=key).fit(
        con, table, "y", features=FEATURES, categorical=["code"], sample_weight="w"
    )
    check(con, model, table, key, 1.0, table["w"].to_numpy(), None)


@pytest.mark.parametrize(
    ("classes", "class_weight", "sample"),
    [(2, "balanced", False), (3, {"k0": 2.5, "k2": 0.5}, True)],
    ids=["balanced", "dict-and-sample"],
)
def test_class_weights_equal_scikit_learns(con, classes, class_weight, sample):
    """The class weights weigh every row as its class (module docstring), in the SVMs and in
    the sigmoids' fit."""
    table = weighted_table(classes)
    model = wml.LinearSVM(key="id", C=0.5, class_weight=class_weight).fit(
        con,
        table,
        "y",
        features=FEATURES,
        categorical=["code"],
        sample_weight="w" if sample else None,
    )
    check(con, model, table, "id", 0.5, table["w"].to_numpy() if sample else None, class_weight)


def test_a_rows_weight_is_dealt_over_the_folds_it_spans(con):
    """Weights 2.5, 0.75, 3, 1 and 13.5 in scan order cover the slots [0, 2.5), [2.5, 3.25),
    [3.25, 6.25), [6.25, 7.25) and [7.25, 20.75) of 5 folds: the reference's pieces by hand,
    and the model's closed form (platt_fold_weight.sql) in SQL equals them."""
    weights = np.array([2.5, 0.75, 3.0, 1.0, 13.5])
    rows, folds, parts = pieces(weights, np.arange(5))
    got = sorted(zip(rows.tolist(), folds.tolist(), parts.tolist(), strict=True))
    assert got[:11] == [
        (0, 0, 1.0), (0, 1, 1.0), (0, 2, 0.5),
        (1, 2, 0.5), (1, 3, 0.25),
        (2, 0, 1.0), (2, 1, 0.25), (2, 3, 0.75), (2, 4, 1.0),
        (3, 1, 0.75), (3, 2, 0.25),
    ]  # fmt: skip
    assert [p for r, _, p in got if r == 4] == [2.75, 2.0, 2.75, 3.0, 3.0]
    starts = np.concatenate([[0.0], np.cumsum(weights)[:-1]])
    items = [
        sqlglot.exp.alias_(
            templates.expression(
                "platt_fold_weight",
                start=templates.literal(float(s)),
                end=templates.literal(float(s + w)),
                folds=templates.literal(FOLDS),
                fold=templates.literal(f),
            ),
            f"p_{i}_{f}",
        )
        for i, (s, w) in enumerate(zip(starts, weights, strict=True))
        for f in range(FOLDS)
    ]
    (row,) = con.execute(sqlglot.exp.select(*items).sql("duckdb")).fetchall()
    expected = np.zeros((len(weights), FOLDS))
    expected[rows, folds] = parts
    np.testing.assert_array_equal(np.array(row).reshape(len(weights), FOLDS), expected)
