"""The primal L2-loss linear SVM by Keerthi and DeCoste's modified finite Newton method
(JMLR 6, 2005), each step one SQL pass (models/learners/linear/svm/sums.py).

Each scored class's problem minimises

    f(w) = w . w / 2 + C sum_i c_i max(0, 1 - y_i w . x_i)^2

over the design with the intercept a column of 1 that the penalty includes (liblinear's, so
scikit-learn's ``LinearSVC(loss="squared_hinge", dual=False)``), ``c_i`` the design step's
row weight (sample_weight times class_weight; 1 unweighted). At
``w`` the margin rows I (``y w . x < 1``) give the gradient ``g = w + 2 C sum_I c (o - y) x``
and the generalised Hessian ``H = 1 + 2 C sum_I c x x'``; the step is ``d = -H^-1 g``, the
least-squares solution of least norm (models/learners/linear/least_norm.py: where a very large C
leaves H singular to double precision along design columns that add up to another, the step
never moves along that direction, which the penalty's optimum has no component along). Along
it ``f`` is a convex piecewise quadratic whose pieces end at the rows' breakpoints (the t where
a row enters or leaves the margin); its minimum is found exactly, most often in one line pass
(sums.py, :meth:`MarginPass.line`): the pass gives ``f'`` and ``f''`` at the
candidate steps :data:`FIRST` (0 and around the Newton step 1) and the least and largest
breakpoint between each two, so the two candidates whose ``f'`` change sign bracket the
minimum, and the piece at either end of the bracket holds it when its root lies before the
bracket's first breakpoint or after its last (or the bracket holds none): that root is then
exact. Otherwise the next pass puts :data:`FAN` candidates between those breakpoints; where
``f'`` is still negative at the last candidate, the next pass looks up to 2^20 times further.
A candidate where ``|f'(t)|`` is at most :data:`LINE_TOL` of ``|f'(0)|`` ends the search too.
Once the margin rows stop changing the Newton step is the exact minimum: the fit stops when the
largest step is at most ``tol (1 + max |w|)``. Every scored class's pass is the same statement,
and so is every model's of a :class:`MarginPass` of several (the Platt folds' SVMs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.linear.least_norm import least_norm_solve
from warehouse_ml.models.learners.linear.svm.sums import MarginPass

LINE_TOL = 1e-12
"""The line search stops at ``|f'(t)| <= LINE_TOL |f'(0)|``."""

MAX_LINE = 20
"""Most line passes of one Newton step."""

FIRST = np.array([0.0, 0.25, 0.5, 0.875, 1.0, 1.25, 2.0, 8.0])
"""The first line pass's candidate steps t: 1 is the Newton step, the minimiser when the
margin rows stay the same along it."""

FAN = len(FIRST)
"""Candidates of every later line pass."""


@dataclass(frozen=True)
class SvmSolution:
    """One model's solution: ``coefficients`` (scored classes x design width, the intercept
    first), the Newton and line passes made, whether the last step was within the tolerance,
    and each scored class's objective ``f(w)`` at its last Newton pass."""

    coefficients: np.ndarray
    n_iter: int
    line_passes: int
    converged: bool
    objective: np.ndarray


def solve(
    warehouse: Warehouse, passes: MarginPass, C: float, max_iter: int, tol: float
) -> list[SvmSolution]:
    """The finite Newton method (module docstring) of each of ``passes``' models, every
    model's scored classes in the same passes. A model leaves the passes once its step is
    within the tolerance or it has made ``max_iter`` Newton steps, so each model takes the
    steps it would take alone."""
    problems = len(passes.problems)
    model_of = np.array([m for m, _ in passes.problems])
    w = np.zeros((problems, passes.design.width))
    objective = np.zeros(problems)
    n_iter, line_passes = np.zeros(passes.models, int), np.zeros(passes.models, int)
    converged, running = np.zeros(passes.models, bool), np.ones(passes.models, bool)
    while running.any():
        active = np.flatnonzero(running[model_of])
        sums = passes.run(warehouse, w[active], active)
        n_iter[running] += 1
        objective[active] = 0.5 * np.einsum("kj,kj->k", w[active], w[active]) + C * sums.loss
        gradient = w[active] + 2.0 * C * sums.residuals
        eye = np.eye(w.shape[1])
        step = np.stack(
            [
                -least_norm_solve(eye + 2.0 * C * h, g)
                for h, g in zip(sums.products, gradient, strict=True)
            ]
        )
        moving = np.ones(len(active), bool)
        for m in np.flatnonzero(running):
            own = model_of[active] == m
            if np.max(np.abs(step[own])) <= tol * (1.0 + np.max(np.abs(w[active[own]]))):
                w[active[own]] += step[own]
                converged[m], running[m], moving[own] = True, False, False
        lines = active[moving]
        if lines.size:
            t, made = line_search(
                warehouse, passes, C, w[lines], step[moving], gradient[moving], tol, lines
            )
            for m in np.unique(model_of[lines]):
                line_passes[m] += int(made[model_of[lines] == m].max())
            w[lines] += t[:, None] * step[moving]
        running &= n_iter < max_iter
    return [
        SvmSolution(
            w[model_of == m],
            int(n_iter[m]),
            int(line_passes[m]),
            bool(converged[m]),
            objective[model_of == m],
        )
        for m in range(passes.models)
    ]


def line_search(
    warehouse: Warehouse,
    passes: MarginPass,
    C: float,
    w: np.ndarray,
    step: np.ndarray,
    gradient: np.ndarray,
    tol: float,
    problems: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each of ``problems``' exact minimiser t of ``f(w + t d)`` (module docstring), and the
    line passes each took part in; a pass sums the problems not yet done. A problem whose
    step is already within ``tol`` takes it whole (its line is flat to the sums' rounding)."""
    m = len(w)
    wd = np.einsum("kj,kj->k", w, step)
    dd = np.einsum("kj,kj->k", step, step)
    start = np.einsum("kj,kj->k", gradient, step)  # f'(0) < 0 for a descent step
    t = np.ones(m)
    small = np.max(np.abs(step), axis=1) <= tol * (1.0 + np.max(np.abs(w), axis=1))
    t[(start >= 0) & ~small] = 0.0
    done = small | (start >= 0)
    candidates = np.tile(FIRST, (m, 1))
    made = np.zeros(m, int)
    while not done.all() and made.max() < MAX_LINE:
        open_ = np.flatnonzero(~done)
        sums = passes.line(warehouse, w[open_], step[open_], candidates[open_], problems[open_])
        made[open_] += 1
        first = wd[open_, None] + candidates[open_] * dd[open_, None] + 2.0 * C * sums.slope
        second = dd[open_, None] + 2.0 * C * sums.curve
        for i, r in enumerate(open_):
            found, t[r], candidates[r] = _bracket(
                candidates[r], first[i], second[i], sums.low[i], sums.high[i], abs(start[r])
            )
            done[r] = found
    return t, made


def _bracket(
    candidates: np.ndarray,
    first: np.ndarray,
    second: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    start: float,
) -> tuple[bool, float, np.ndarray]:
    """One class's line after a pass at ``candidates`` (``first`` and ``second``: f' and
    f'' there, up to the factor 2; ``low``, ``high``: the breakpoints between them): whether
    its minimiser is found, the best t so far, and the next pass's candidates (module
    docstring)."""
    near = np.flatnonzero(np.abs(first) <= LINE_TOL * start)
    if near.size:
        return True, float(candidates[near[0]]), candidates
    above = np.flatnonzero(first > 0)
    if not above.size:  # f' < 0 at every candidate: look further along the line
        return False, float(candidates[-1]), candidates[-1] * np.geomspace(1.0, 2.0**20, FAN)
    j = int(above[0])  # first[j - 1] < 0 < first[j]; j >= 1 as the first candidate is 0
    a, b = candidates[j - 1], candidates[j]
    left = a - first[j - 1] / second[j - 1]  # the root of the piece right of a
    right = b - first[j] / second[j]  # the root of the piece left of b
    lo, hi = low[j - 1], high[j - 1]
    if np.isnan(lo):  # one piece from a to b: its root is exact
        return True, float(left), candidates
    if first[j - 1] + second[j - 1] * (lo - a) >= 0:  # the root is before the first breakpoint
        return True, float(left), candidates
    if first[j] - second[j] * (b - hi) <= 0:  # or after the last one
        return True, float(right), candidates
    inner = np.linspace(lo, hi, FAN)[1:-1]  # strictly between the breakpoints
    return False, float(np.clip(left, a, b)), np.concatenate([[a], inner, [b]])
