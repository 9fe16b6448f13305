"""Ledoit and Wolf's shrinkage of each class's covariance, as scikit-learn's
``LinearDiscriminantAnalysis(solver="lsqr", shrinkage="auto")`` estimates it
(``discriminant_analysis._cov`` with ``"auto"``, ``covariance.ledoit_wolf``).

For class k with ``n`` rows, population covariance ``S`` of the p design columns (from the
discriminant's one pass, models/learners/linear/linear_discriminant.py) and means ``m``:

1. the rows are standardised by the class's own means and standard deviations ``s``
   (``StandardScaler`` on the class's rows: a column constant in the class, whose variance is
   within the one-pass rounding ``n eps E[x^2]`` of 0, is scaled by 1 and its standardised
   values are 0), so their covariance is the correlation matrix ``R = S / (s s')``;
2. ``mu = trace(R) / p``; ``delta = ||R - mu I||_F^2 / p``;
   ``beta = (E[||z||^4] - ||R||_F^2) / (p n)`` with ``z`` a standardised row, the one moment
   not in the pass: :func:`fourth_moments` sums ``||z||^4`` per class in one more SQL pass
   (warehouse_ml/sql/models/learners/linear/linear_discriminant/class_standardized_square.sql); the
   shrinkage is ``min(beta, delta) / delta`` (0 when that is 0, or with one column);
3. the class's covariance is ``s s' * ((1 - shrinkage) R + shrinkage mu I)``.

The fourth moments are summed in DOUBLE in the engine's order, as the discriminant's pass
(docs/ARCHITECTURE.md): standardised values are of order 1.
"""

from __future__ import annotations

import numpy as np
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.linear.newton_sums import design_step, step_name
from warehouse_ml.models.learners.shared.design import Design
from warehouse_ml.models.scoring.steps import balanced_sum
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import NUMERIC

DESIGN = "wml_design"


def class_scales(
    counts: np.ndarray, means: np.ndarray, covariances: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each class's standard deviation of each design column (classes x p), 1 for a column
    constant in the class, and where it is so (step 1 of the module docstring), from its rows
    ``counts``, its ``means`` and its population ``covariances`` (classes x p x p)."""
    variances = np.diagonal(covariances, axis1=1, axis2=2)
    squares = variances + means * means
    constant = variances <= counts[:, None] * np.finfo(float).eps * squares
    return np.where(constant, 1.0, np.sqrt(np.where(constant, 1.0, variances))), constant


def fourth_moments(
    warehouse: Warehouse,
    design: Design,
    training: Training,
    means: np.ndarray,
    scales: np.ndarray,
) -> np.ndarray:
    """Each class's sum over its training rows of ``||z||^4``, z the row's design values
    standardised by the class's ``means`` and ``scales`` (classes x p): one SQL pass."""
    numeric = [f.name for f in design.features if f.kind == NUMERIC]
    categorical = [f.name for f in design.features if f.kind != NUMERIC]
    values: list[tuple[int, exp.Expression]] = [
        (design.indices(a)[0], column(step_name("z", i))) for i, a in enumerate(numeric)
    ]
    for i, a in enumerate(categorical):
        level = column(step_name("c", i))
        values += [
            (
                j,
                exp.case()
                .when(exp.EQ(this=level.copy(), expression=literal(u)), literal(1.0))
                .else_(literal(0.0)),
            )
            for u, j in enumerate(design.indices(a))
        ]
    norm = exp.case(column("wml_y"))
    for k in range(len(means)):
        squares = [
            templates.expression(
                "class_standardized_square",
                value=value,
                mean=literal(float(means[k, j - 1])),
                scale=literal(float(scales[k, j - 1])),
            )
            for j, value in values
        ]
        norm = norm.when(literal(k), balanced_sum(squares) if squares else literal(0.0))
    query = (
        exp.select(
            alias(column("wml_y"), "wml_y"),
            alias(exp.Sum(this=exp.Mul(this=norm, expression=norm.copy())), "wml_fourth"),
        )
        .from_(DESIGN)
        .group_by(column("wml_y"))
        .with_(DESIGN, as_=design_step(design, training), copy=False)
    )
    fourth = np.zeros(len(means))
    for row in warehouse.fetch_tree(query).to_pylist():
        fourth[row["wml_y"]] = row["wml_fourth"] or 0.0
    return fourth


def shrunk_covariance(
    covariance: np.ndarray, scale: np.ndarray, constant: np.ndarray, n: float, fourth: float
) -> np.ndarray:
    """One class's Ledoit-Wolf covariance (steps 2 and 3 of the module docstring) from its
    population ``covariance``, its :func:`class_scales` rows ``scale`` and ``constant``, its
    rows ``n`` and its :func:`fourth_moments` entry ``fourth``."""
    p = len(scale)
    outer = np.outer(scale, scale)
    varying = ~constant
    correlation = np.where(varying[:, None] & varying[None, :], covariance / outer, 0.0)
    correlation[np.diag_indices(p)] = np.where(varying, 1.0, 0.0)
    mu = np.trace(correlation) / p
    squared = float(np.sum(correlation * correlation))
    delta = (squared - 2.0 * mu * np.trace(correlation) + p * mu * mu) / p
    beta = min((fourth / n - squared) / (p * n), delta)
    shrinkage = 0.0 if p == 1 or beta == 0 or delta <= 0 else beta / delta
    return outer * ((1.0 - shrinkage) * correlation + shrinkage * mu * np.eye(p))
