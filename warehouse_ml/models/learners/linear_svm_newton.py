"""The primal L2-loss linear SVM by Keerthi and DeCoste's modified finite Newton method
(JMLR 6, 2005), each step one SQL pass (models/learners/linear_svm_sums.py).

Each scored class's problem minimises

    f(w) = w . w / 2 + C sum_i c_i max(0, 1 - y_i w . x_i)^2

over the design with the intercept a column of 1 that the penalty includes (liblinear's, so
scikit-learn's ``LinearSVC(loss="squared_hinge", dual=False)``), ``c_i`` the design step's
row weight (1: the learner fits no weights). At
``w`` the margin rows I (``y w . x < 1``) give the gradient ``g = w + 2 C sum_I c (o - y) x``
and the generalised Hessian ``H = 1 + 2 C sum_I c x x'``; the step is ``d = -H^-1 g``. Along
it ``f`` is a convex piecewise quadratic; its minimum is found exactly: from ``t = 1``, each
line pass gives ``f'(t)`` and ``f''(t)`` on the piece holding t, a Newton step on that piece
lands on its minimum, safeguarded by the bracket of signs of ``f'`` seen (bisection when it
leaves it), until ``|f'(t)|`` is at most :data:`LINE_TOL` of ``|f'(0)|``. Once the margin rows
stop changing the Newton step is the exact minimum: the fit stops when the largest step is at
most ``tol (1 + max |w|)``. Every scored class's pass is the same statement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.linear_svm_sums import MarginPass

LINE_TOL = 1e-12
"""The line search stops at ``|f'(t)| <= LINE_TOL |f'(0)|``."""

MAX_LINE = 60
"""Most line passes of one Newton step."""


@dataclass(frozen=True)
class SvmSolution:
    """``coefficients`` (scored classes x design width, the intercept first), the Newton
    and line passes made, whether the last step was within the tolerance, and each scored
    class's objective ``f(w)`` at its last Newton pass."""

    coefficients: np.ndarray
    n_iter: int
    line_passes: int
    converged: bool
    objective: np.ndarray


def solve(
    warehouse: Warehouse, passes: MarginPass, C: float, max_iter: int, tol: float
) -> SvmSolution:
    """The finite Newton method (module docstring), every scored class at once."""
    m, d = len(passes.scored), passes.design.width
    w = np.zeros((m, d))
    n_iter, line_passes, converged = 0, 0, False
    objective = np.zeros(m)
    while n_iter < max_iter:
        sums = passes.run(warehouse, w)
        n_iter += 1
        objective = 0.5 * np.einsum("kj,kj->k", w, w) + C * sums.loss
        gradient = w + 2.0 * C * sums.residuals
        step = np.stack(
            [
                -np.linalg.solve(np.eye(d) + 2.0 * C * sums.products[r], gradient[r])
                for r in range(m)
            ]
        )
        if float(np.max(np.abs(step))) <= tol * (1.0 + float(np.max(np.abs(w)))):
            w, converged = w + step, True
            break
        t, passes_made = line_search(warehouse, passes, C, w, step, gradient, tol)
        line_passes += passes_made
        w = w + t[:, None] * step
    return SvmSolution(w, n_iter, line_passes, converged, objective)


def line_search(
    warehouse: Warehouse,
    passes: MarginPass,
    C: float,
    w: np.ndarray,
    step: np.ndarray,
    gradient: np.ndarray,
    tol: float,
) -> tuple[np.ndarray, int]:
    """Each class's exact minimiser t of ``f(w + t d)`` (module docstring), and the passes
    made. A class whose step is already within ``tol`` takes it whole (its line is flat to
    the sums' rounding)."""
    wd = np.einsum("kj,kj->k", w, step)
    dd = np.einsum("kj,kj->k", step, step)
    start = np.einsum("kj,kj->k", gradient, step)  # f'(0) < 0 for a descent step
    t = np.ones(len(w))
    low, high = np.zeros(len(w)), np.full(len(w), np.inf)
    small = np.max(np.abs(step), axis=1) <= tol * (1.0 + np.max(np.abs(w), axis=1))
    t[(start >= 0) & ~small] = 0.0
    done = small | (start >= 0)
    made = 0
    while not done.all() and made < MAX_LINE:
        slope, curve = passes.line(warehouse, w + t[:, None] * step, step)
        made += 1
        first = wd + t * dd + 2.0 * C * slope
        second = dd + 2.0 * C * curve
        done |= np.abs(first) <= LINE_TOL * np.abs(start)
        low = np.where(~done & (first < 0), t, low)
        high = np.where(~done & (first > 0), t, high)
        newton = t - first / second
        inside = (newton > low) & (newton < high)
        fallback = np.where(np.isfinite(high), (low + high) / 2.0, 2.0 * t)
        moved = np.where(inside, newton, fallback)
        done |= np.abs(moved - t) <= 1e-15 * np.maximum(1.0, np.abs(t))
        t = np.where(done, t, moved)
    return t, made
