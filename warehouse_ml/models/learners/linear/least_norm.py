"""The linear solves of the Newton solvers (logistic regression, the SVM, Platt's sigmoids),
defined where their systems are singular to double precision.

A Newton system ``H d = g`` of these fits is positive definite in exact arithmetic wherever a
penalty holds every direction, but rounding leaves it singular when the penalty is far weaker
than the sums (a large C, or none) along a direction the data do not determine: design columns
that add up to another (every level of a categorical attribute with no NULL sums to the
intercept's column, or a numeric attribute copied), or a sigmoid whose decision values are all
equal. Each step is then the least-squares solution of least norm: singular values below
``eps * size`` times the largest count as 0 (numpy's ``lstsq`` with ``rcond=None``), so a step
never moves along such a direction; where the system is well-conditioned it is the solution.
From a start with no component along them (the solvers start at 0, Platt's from
scikit-learn's ``(0, B)``), the fit ends at the optimum of least norm among the equivalent
ones: the same scores and probabilities, and coefficients with no component along a null
direction of the design.
"""

from __future__ import annotations

import numpy as np


def least_norm_solve(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """The least-squares solution of least norm of ``matrix @ x = vector`` (module
    docstring)."""
    return np.linalg.lstsq(matrix, vector, rcond=None)[0]


def pseudo_inverse(matrix: np.ndarray) -> np.ndarray:
    """The pseudo-inverse of a symmetric ``matrix``, with the cut-off of
    :func:`least_norm_solve` (its inverse where it is well-conditioned)."""
    cutoff = np.finfo(float).eps * max(matrix.shape, default=1)
    return np.linalg.pinv(matrix, rtol=cutoff, hermitian=True)
