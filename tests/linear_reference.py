"""The linear families' tests' reference: the design their rules describe, built in numpy
(models/learners/shared/design.py states the rules), a mixed data set, and the shared UCI data
sets read as the tests read them."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest


def design(
    train: pa.Table,
    rows: pa.Table,
    features: list[str],
    numeric: list[str],
    weight: np.ndarray | None = None,
) -> tuple[np.ndarray, list[str]]:
    """The design of ``rows`` under the rules, learned on ``train`` (weighted by ``weight``),
    in the model's column order: the features in order, a categorical one's levels by text."""
    columns, names = [], []
    w = np.ones(train.num_rows) if weight is None else weight
    for name in features:
        if name in numeric:
            x = train[name].to_numpy(zero_copy_only=False).astype(float)
            seen = ~np.isnan(x)
            mean = np.average(x[seen], weights=w[seen])
            variance = np.average((x[seen] - mean) ** 2, weights=w[seen])
            std = 1.0 if _constant(variance, mean, int(seen.sum())) else math.sqrt(variance)
            z = (rows[name].to_numpy(zero_copy_only=False).astype(float) - mean) / std
            columns.append(np.nan_to_num(z, nan=0.0))
            names.append(name)
            continue
        levels = sorted({str(v) for v in train[name].to_pylist() if v is not None})
        values = [None if v is None else str(v) for v in rows[name].to_pylist()]
        for level in levels:
            columns.append(np.array([v == level for v in values], float))
            names.append(f"{name}={level}")
    return np.column_stack(columns), names


def _constant(variance: float, mean: float, n: int) -> bool:
    """Whether a column of ``n`` values with this mean and variance is constant, as
    scikit-learn's ``StandardScaler`` decides it (``_is_constant_feature``): a variance within
    the rounding error of summing the values (a constant column under uneven weights has a
    mean 1 ulp off, and so a variance of some 1e-32 instead of 0)."""
    eps = np.finfo(np.float64).eps
    return variance <= n * eps * variance + (n * mean * eps) ** 2


def probabilities(model, con, source) -> np.ndarray:
    return np.column_stack([c.to_numpy() for c in model.predict_proba(con, source).columns])


def decisions(model, con, source) -> np.ndarray:
    """``model.decision_function`` as scikit-learn shapes it: one value per row for one
    column (two classes), else rows x columns."""
    table = model.decision_function(con, source)
    matrix = np.column_stack([c.to_numpy() for c in table.columns])
    return matrix[:, 0] if table.num_columns == 1 else matrix


def mixed(n: int = 400, classes: int = 2, seed: int = 1) -> pa.Table:
    """Two numerics (one with NULLs, on another scale), a text attribute with NULLs and an
    integer code; classes from a softmax of them."""
    rng = np.random.default_rng(seed)
    x1, x2 = rng.normal(size=n), rng.normal(5.0, 3.0, n)
    colour = rng.choice(["red", "green", "blue"], n)
    code = rng.integers(0, 4, n)
    scores = np.column_stack(
        [np.zeros(n)]
        + [
            (k * 0.7) * x1 - 0.2 * k * (x2 - 5) + (colour == "red") * k - 0.4 * (code == k)
            for k in range(1, classes)
        ]
    )
    p = np.exp(scores - scores.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    y = np.array([rng.choice(classes, p=row) for row in p])
    return pa.table(
        {
            "id": pa.array(np.arange(n), pa.int64()),
            "x1": pa.array(x1),
            "x2": pa.array([None if i % 17 == 3 else v for i, v in enumerate(x2)], pa.float64()),
            "colour": pa.array([None if i % 23 == 5 else v for i, v in enumerate(colour)]),
            "code": pa.array(code, pa.int64()),
            "w": pa.array(rng.integers(1, 4, n), pa.int64()),
            "y": pa.array([f"k{v}" for v in y]),
        }
    )


FEATURES = ["x1", "colour", "x2", "code"]
NUMERIC = ["x1", "x2"]


def shared(con, datasets, name: str, numeric: tuple[str, ...] = (), rows: int = 0) -> pa.Table:
    """A shared data set as text columns (empty field = NULL) but ``numeric`` (DOUBLE), its
    first ``rows`` rows (all: 0)."""
    path = datasets / name
    if not path.is_file():
        pytest.skip(f"{name} not in the shared data sets")
    text = con.read_csv(str(path), all_varchar=True)
    if rows:
        text = text.limit(rows)
    table = text.to_arrow_table()
    for column in numeric:
        index = table.schema.get_field_index(column)
        table = table.set_column(index, column, table[column].cast(pa.float64()))
    return table


DATA_SETS = [
    ("vote.csv", (), 0),
    ("car.csv", (), 0),
    ("iris.csv", ("sepallength", "sepalwidth", "petallength", "petalwidth"), 0),
    ("credit-g.csv", ("duration", "credit_amount", "age", "installment_commitment"), 0),
    ("adult_train.csv", ("age", "fnlwgt", "education-num", "capital-gain", "hours-per-week"), 3000),
]
"""The shared data sets the linear families are compared on: (file, its numeric columns, the
rows read: 0 all): binary and multi-class, categorical (with NULLs), numeric and mixed."""


def polished_logistic(
    X: np.ndarray, y: list, weight: np.ndarray | None, coef: np.ndarray, intercept: np.ndarray,
    C: float = 1.0, steps: int = 4,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """scikit-learn's L2 logistic regression solution (``coef``, ``intercept``: one row for two
    classes, one per class for more) refined by full Newton steps on its own objective,
    ``||coef||^2 / 2 + C * sum_i w_i * log-loss_i`` (the intercept unpenalised), to the
    precision of double arithmetic. A solver stops at its tolerance on the gradient; where the
    design is badly scaled (a number standardised by moments that tiny weights dominate reaches
    5e4) that leaves probabilities 2e-9 from the optimum, where the fit under test is exact."""
    w = np.ones(len(X)) if weight is None else np.asarray(weight, float)
    labels = sorted(set(y))
    onehot = np.array([[v == c for c in labels] for v in y], float)
    rows, d = coef.shape[0], X.shape[1] + 1
    design_ = np.column_stack([np.ones(len(X)), X])
    target = onehot[:, 1:] if rows == 1 else onehot
    theta = np.column_stack([intercept, coef])  # rows x d
    penalty = np.ones(d)
    penalty[0] = 0.0
    for _ in range(steps):
        scores = design_ @ theta.T
        if rows == 1:
            p = 1.0 / (1.0 + np.exp(-scores))
        else:
            shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
            p = shifted / shifted.sum(axis=1, keepdims=True)
        gradient = (C * design_.T @ (w[:, None] * (p - target))).T + theta * penalty
        hessian = np.zeros((rows * d, rows * d))
        for a in range(rows):
            for b in range(rows):
                share = p[:, a] * ((a == b) - p[:, b]) if rows > 1 else p[:, 0] * (1 - p[:, 0])
                block = C * design_.T @ ((w * share)[:, None] * design_)
                hessian[a * d : (a + 1) * d, b * d : (b + 1) * d] = block
        hessian += np.diag(np.tile(penalty, rows))
        step = np.linalg.lstsq(hessian, gradient.ravel(), rcond=None)[0]
        theta = theta - step.reshape(rows, d)
    return theta[:, 1:], theta[:, 0]


def logistic_probabilities(X: np.ndarray, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """Rows x classes probabilities of a logistic model shaped as scikit-learn's."""
    scores = X @ coef.T + intercept
    if coef.shape[0] == 1:
        p = 1.0 / (1.0 + np.exp(-scores[:, 0]))
        return np.column_stack([1.0 - p, p])
    shifted = np.exp(scores - scores.max(axis=1, keepdims=True))
    return shifted / shifted.sum(axis=1, keepdims=True)
