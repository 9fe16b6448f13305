"""Logistic regression by Newton's method (IRLS), each iteration one SQL pass of aggregates.

Features follow the linear families' design rules (models/learners/shared/design.py, which
states them): categorical attributes one-hot with every level, numeric attributes
standardised by the training mean and population standard deviation (as ``StandardScaler``),
a NULL numeric value the training mean (0 after scaling), a NULL or unseen categorical value
every indicator 0.

The model maximises the (weighted) log-likelihood less an L2 penalty ``||b||^2 / (2 C)`` on
the coefficients, the intercepts unpenalised, as scikit-learn's ``LogisticRegression(C=C)``
(``penalty=None``: the log-likelihood alone, C unused, as scikit-learn's ``penalty=None``,
spelt ``C=np.inf`` since its 1.8):
two classes have one coefficient vector (class 1 against class 0); more classes a multinomial
(softmax) model with one vector per class, its intercepts centred (summing to 0) as
scikit-learn reports them. Newton's method starts at 0; each iteration is one SQL pass
(models/learners/linear/newton_sums.py: the gradient and the Hessian, binary or multinomial blocks,
with the current coefficients written into the query as literals) and a solve of the p x p
(multinomial: K p x K p) system in numpy; a step that raises the objective is halved, and the
fit stops when the largest step is at most ``tol (1 + max |b|)`` (relative for large
coefficients, whose last bits the sums' rounding moves). The softmax's singular direction (every
intercept shifted alike) is removed from the multinomial solve by adding its projection. Each
step is the least-squares solution of least norm (models/learners/linear/least_norm.py): the solve
itself where the system is well-conditioned; where a penalty too weak beside the sums (C=1e20)
leaves it singular to double precision along design columns that add up to another (every
level of a categorical attribute with no NULL sums to the intercept's column), a step that
never moves along that direction, so the coefficients are the optimum with no component
along it, and the probabilities are the same.

The passes sum in DOUBLE in the engine's own order (a relaxation of the exact sums of the
counting families, docs/ARCHITECTURE.md): Newton's last steps are far below the sums'
rounding, so coefficients agree to 1e-12 across runs and thread counts.

Standard errors are the square roots of the diagonal of the inverse of the penalised Hessian
at the solution (the pseudo-inverse for the multinomial model, whose intercepts are centred,
and for a Hessian singular to double precision: the least-norm coefficients' errors);
Wald's z = b / se and its two-sided p-value. With a large C they are the unpenalised
maximum-likelihood ones (statsmodels' ``Logit``). A fit whose training rows all score their
own class highest warns (:class:`SeparationWarning`): the classes are separable, so without
the penalty the coefficients would grow without bound. Without a penalty such classes have no
maximum likelihood (Albert and Anderson, 1984: it exists only when no coefficients score every
row's own class highest): the fit stops at the first pass whose (non-zero) coefficients do, a
:class:`~warehouse_ml.errors.ModelError`. Classes separated but for rows on the boundary (a
quasi-complete separation) have no maximum either, but no pass finds it: their coefficients
grow by about one unit per pass and the fit stops at ``max_iter``. A fit that does not converge
within ``max_iter`` passes warns (:class:`ConvergenceWarning`).

Parameter tables (each led by ``wml_part``, 0 for a fitted model):

* ``classes``: class_index, class_label, n, log_prior: the class's intercept (0 for the first
  class of a binary model), the base term scoring and explanations read;
* ``design``: column_index, attribute, kind, level, mean, scale (models/learners/shared/design.py);
* ``coefficients``: class_index, column_index (0 the intercept), coefficient, std_error,
  z_value, p_value (only the scored classes: class 1 of a binary model).

The model's state keeps the solver's report (models/learners/linear/logistic_regression_state.py):
passes, whether it converged, whether the classes were separated, the log-likelihood, and the
coefficients and their standard errors (so ``coef_`` and :meth:`LogisticRegression.summary`
need no connection).

Scoring: each class's score is its intercept plus one term per attribute (the coefficient
times the standardised value, or the level's coefficient), so the scoring query's softmax
gives the probabilities and an explanation's evidence of an attribute is the difference of
two classes' terms (``AdditiveScores``).
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from warehouse_ml.engines import Connectable
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.errors import ModelError
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import AdditiveScores, WeightedFit
from warehouse_ml.models.inspection.sections import ModelSection, TablePart
from warehouse_ml.models.learners.linear.least_norm import least_norm_solve, pseudo_inverse
from warehouse_ml.models.learners.linear.logistic_regression_state import LogisticRegressionState
from warehouse_ml.models.learners.linear.newton_sums import NewtonPass, NewtonSums
from warehouse_ml.models.learners.linear.scores import NewtonScores
from warehouse_ml.models.learners.shared.design import (
    Design,
    write_classes,
    write_coefficients,
)
from warehouse_ml.models.learners.shared.parameters import keep_checked
from warehouse_ml.models.training import Training
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.ownership import Staging

MAX_HALVINGS = 40
"""Most halvings of one Newton step before the fit gives up on lowering the objective."""

RISE = 1e-12
"""A step is halved when it raises the objective by more than this fraction of it (less is
the sums' rounding)."""


class SeparationWarning(UserWarning):
    """The fitted model scores every training row's own class highest: the classes are
    separable, and the coefficients grow without bound as C grows."""


class ConvergenceWarning(UserWarning):
    """Newton's method stopped at ``max_iter`` passes with a step larger than its tolerance."""


"""The ``penalty`` settings: L2, or none."""


@dataclass(frozen=True)
class Solution:
    """The solver's result: ``coefficients`` (scored classes x design width), their
    ``covariance`` (class-major), the passes made, what the last pass found, and whether its
    coefficients (some not 0) scored every training row's own class highest."""

    coefficients: np.ndarray
    covariance: np.ndarray
    n_iter: int
    converged: bool
    last: NewtonSums
    separated: bool


def solve(
    warehouse: Warehouse, newton: NewtonPass, strength: float, max_iter: int, tol: float
) -> Solution:
    """Newton's method on the negative log-likelihood plus ``strength ||b||^2 / 2`` (1 / C;
    0 without a penalty, where the first pass finding the classes separated ends the fit:
    module docstring)."""
    m, d = len(newton.scored), newton.design.width
    penalty = np.full((m, d), strength)
    penalty[:, 0] = 0.0
    shift = np.zeros((m * d, m * d))
    if m > 1:  # every intercept alike: the softmax's flat direction
        u = np.zeros((m, d))
        u[:, 0] = 1.0 / math.sqrt(m)
        shift = np.outer(u.ravel(), u.ravel())
    beta = np.zeros((m, d))
    accepted: tuple[float, np.ndarray] | None = None
    step = np.zeros((m, d))
    halvings, n_iter, converged = 0, 0, False
    while n_iter < max_iter:
        sums = newton.run(warehouse, beta)
        n_iter += 1
        if strength == 0 and _separates(sums, beta):  # no maximum: stop at these
            accepted = (-sums.log_likelihood, beta)
            break
        objective = -sums.log_likelihood + 0.5 * float(np.sum(penalty * beta * beta))
        if accepted is not None and objective > accepted[0] + RISE * abs(accepted[0]):
            if halvings == MAX_HALVINGS:
                break
            step, halvings = step / 2.0, halvings + 1
            beta = accepted[1] + step
            continue
        accepted, halvings = (objective, beta), 0
        hessian = sums.hessian + np.diag(penalty.ravel()) + shift
        gradient = sums.gradient - penalty * beta
        step = least_norm_solve(hessian, gradient.ravel()).reshape(m, d)
        if float(np.max(np.abs(step))) <= tol * (1.0 + float(np.max(np.abs(beta)))):
            beta, converged = beta + step, True
            break
        beta = beta + step
    if not converged:
        beta = accepted[1] if accepted is not None else beta
    hessian = sums.hessian + np.diag(penalty.ravel()) + shift
    covariance = pseudo_inverse(hessian) - shift
    if m > 1:
        beta[:, 0] -= beta[:, 0].mean()
    return Solution(beta, covariance, n_iter, converged, sums, _separates(sums, beta))


def _separates(sums: NewtonSums, beta: np.ndarray) -> bool:
    """Whether the pass ``sums`` at ``beta`` scored every row's own class highest with some
    coefficient not 0 (at 0 every class ties)."""
    return sums.margin >= 0 and bool(np.any(beta != 0))


class LogisticRegression(NewtonScores, AdditiveScores, WeightedFit, Classifier):
    """Logistic regression, L2-penalised or not, binary or multinomial (module docstring).

    Args:
        C: inverse of the penalty's strength, > 0: the coefficients' penalty is
            ``||b||^2 / (2 C)`` (intercepts unpenalised), as scikit-learn's; not used
            without a penalty.
        penalty: ``"l2"``, or None for the likelihood alone (scikit-learn's
            ``penalty=None``); separable classes are then a ModelError (module docstring).
        max_iter: most Newton passes over the data, >= 1.
        tol: the fit has converged when the largest Newton step (of the coefficients of the
            standardised design) is at most ``tol (1 + max |coefficient|)``, >= 0.
        categorical, numeric: columns to model as categorical / numeric whatever their type
            (stats/features.py).
        class_weight: None, ``"balanced"`` or a mapping class -> weight: every row of a class
            counts as that weight, times its ``sample_weight`` (stats/weights.py); the
            standardisation's moments are weighted alike.
    """

    kind = "logistic_regression"
    state_class = LogisticRegressionState

    def __init__(
        self,
        *,
        C: float = 1.0,
        penalty: str | None = "l2",
        max_iter: int = 100,
        tol: float = 1e-10,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        keep_checked(
            self, LogisticRegression.kind, C=C, penalty=penalty, max_iter=max_iter, tol=tol
        )

    def _learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> LogisticRegressionState:
        """The design (one count scan, one moments scan), then one pass per Newton iteration;
        writes the ``classes``, ``design`` and ``coefficients`` tables (module docstring)."""
        design = Design.learn(warehouse, training, check)
        classes = training.classes[0]
        newton = NewtonPass(design, training, len(classes))
        strength = 0.0 if self.penalty is None else 1.0 / self.C
        solution = solve(warehouse, newton, strength, self.max_iter, self.tol)
        if self.penalty is None and solution.separated:
            raise ModelError(
                f"the classes of {training.source.description} are perfectly separated: the "
                f"coefficients of Newton pass {solution.n_iter} score every training row's own "
                "class highest, so without a penalty (penalty=None) the likelihood has no "
                "maximum and the coefficients would grow without bound; fit with penalty='l2' "
                "and a finite C (the larger C, the larger the coefficients)"
            )
        design.write(warehouse, tables.table("design"))
        errors = np.sqrt(np.clip(np.diag(solution.covariance), 0.0, None))
        errors = errors.reshape(solution.coefficients.shape)
        full = newton.every_class(solution.coefficients)
        write_classes(warehouse, tables.table("classes"), training, full[:, 0])
        rows = []
        for r, k in enumerate(newton.scored):
            for j, (b, se) in enumerate(zip(solution.coefficients[r], errors[r], strict=True)):
                z = float(b / se) if se > 0 else None
                p = math.erfc(abs(z) / math.sqrt(2.0)) if z is not None else None
                rows.append((0, k, j, float(b), float(se) if se > 0 else None, z, p))
        write_coefficients(warehouse, tables.table("coefficients"), rows)
        separated = solution.separated and solution.coefficients[:, 1:].size > 0
        self._warn(solution, separated, training.source.description)
        return LogisticRegressionState(
            n_iter=solution.n_iter,
            converged=solution.converged,
            separated=bool(separated),
            log_likelihood=solution.last.log_likelihood,
            columns=tuple(design.names),
            classes=tuple(classes[k].index for k in newton.scored),
            coefficients=tuple(map(tuple, solution.coefficients.tolist())),
            std_errors=tuple(map(tuple, errors.tolist())),
        )

    def _warn(self, solution: Solution, separated: bool, description: str) -> None:
        if separated:
            warnings.warn(
                SeparationWarning(
                    f"the classes of {description} are perfectly separated by the fitted model "
                    f"(every training row scores its own class highest): without the penalty "
                    f"the coefficients would grow without bound; they are held by C={self.C!r} "
                    f"(largest |coefficient| {np.max(np.abs(solution.coefficients)):.4g}), and "
                    "a larger C makes them and the probabilities more extreme"
                ),
                stacklevel=4,
            )
        if not solution.converged:
            remedy = "fit with penalty='l2'" if self.penalty is None else "lower C"
            warnings.warn(
                ConvergenceWarning(
                    f"logistic regression on {description} did not converge in "
                    f"{solution.n_iter} passes (max_iter={self.max_iter}, tol={self.tol!r}): "
                    f"raise max_iter, or {remedy} if the classes are (nearly) separable"
                ),
                stacklevel=4,
            )

    # -- the fitted model's numbers ---------------------------------------------------------
    def model_section(self, con: Connectable) -> ModelSection:
        """The coefficients by term (linear_design.coefficient_table) with their standard
        errors, z values and p values (:meth:`summary`, in the same order)."""
        section = super().model_section(con)
        (part,) = section.parts
        assert isinstance(part, TablePart)
        table, tested = part.table, self.summary()
        for name in ("std_error", "z_value", "p_value"):
            table = table.append_column(name, tested[name])
        return dataclasses.replace(section, parts=[dataclasses.replace(part, table=table)])

    def summary(self) -> pa.Table:
        """One row per scored class and coefficient: ``class`` (the label), ``term``
        (``(intercept)``, a numeric attribute, or ``attribute=level``), ``coefficient``,
        ``std_error``, ``z_value`` (coefficient / std_error) and ``p_value`` (two-sided Wald
        test; NULL where the standard error is 0)."""
        table = super().summary()
        errors = [se for row in self._report.std_errors for se in row]
        coefficients = table["coefficient"].to_pylist()
        z = [b / se if se > 0 else None for b, se in zip(coefficients, errors, strict=True)]
        p = [None if v is None else math.erfc(abs(v) / math.sqrt(2.0)) for v in z]
        for name, values in (("std_error", errors), ("z_value", z), ("p_value", p)):
            table = table.append_column(name, pa.array(values, pa.float64()))
        return table
