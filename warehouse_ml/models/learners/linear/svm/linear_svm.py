"""Linear support vector machine: the primal L2-loss (squared hinge) SVM by the finite Newton
method, each step one SQL pass, with Platt's sigmoids for probabilities.

Features follow the linear families' design rules (models/learners/shared/design.py, which
states them): categorical attributes one-hot with every level, numeric attributes
standardised by the training mean and population standard deviation, a NULL numeric value
the training mean (0 after scaling), a NULL or unseen categorical value every indicator 0.

Each scored class k (two classes: class 1 against class 0; more: each class against the rest)
has the coefficients ``w_k`` minimising ``w . w / 2 + C sum_i c_i max(0, 1 - y_i w . x_i)^2``,
``c_i`` the row's weight (``sample_weight`` times ``class_weight``, stats/weights.py; 1
unweighted; the standardisation's moments are weighted alike, models/learners/shared/design.py),
the intercept a column of 1 that the penalty includes, as scikit-learn's
``LinearSVC(loss="squared_hinge", dual=False, intercept_scaling=1)``; the solver is
models/learners/linear/svm/newton.py, its passes models/learners/linear/svm/sums.py. A row's
decision value of class k is ``f_k = w_k . x``.

Probabilities are Platt's (models/learners/linear/svm/platt.py): one sigmoid per scored class,
``1 / (1 + exp(A_k f_k + B_k))``, fitted on decision values cross-validated over ``folds``
folds; more than two classes' are normalised to sum to 1, two classes' are the sigmoid of
class 1 and its complement, as scikit-learn's ``CalibratedClassifierCV(method="sigmoid",
ensemble=False)`` with the weights as ``sample_weight``. The folds deal each row by its
weight: the rows in order (by their key's MD5, else scan order) cover consecutive unit slots,
as many as their weight, slot i in fold i modulo ``folds``, and a row's part in a fold (the
measure of its slots there) is held out of that fold's SVM and weighs the decision value that
SVM gives it in the sigmoid's fit. So a row of integer weight w is dealt as w consecutive
copies of it, and integer weights equal repeated rows (the capability WeightedFit).

Parameter tables (each led by ``wml_part``, 0 for a fitted model), as the logistic
regression's: ``classes`` (the intercept of each class's decision value as log_prior; 0 for
class 0 of a binary model), ``design`` and ``coefficients`` (the scored classes; std_error,
z_value and p_value NULL). The sigmoids are in the model's state.

Explanations read the decision values: each attribute's part is its coefficient times its
standardised value (or its level's coefficient), so a row's parts and the intercept add up to
its decision value (for two classes: class 1's against class 0's, whose decision value is 0).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import Evidence, WeightedFit
from warehouse_ml.models.inspection.sections import ModelSection, TablePart
from warehouse_ml.models.learners.linear.scores import NewtonScores
from warehouse_ml.models.learners.linear.svm import platt as linear_svm_platt
from warehouse_ml.models.learners.linear.svm.newton import solve
from warehouse_ml.models.learners.linear.svm.state import LinearSvmState
from warehouse_ml.models.learners.linear.svm.sums import MarginPass
from warehouse_ml.models.learners.shared.design import (
    Design,
    write_classes,
    write_coefficients,
)
from warehouse_ml.models.learners.shared.parameters import keep_checked
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.scoring.scores import ClassProbabilities, Scores
from warehouse_ml.models.scoring.steps import balanced_sum
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging


class LinearSVM(NewtonScores, Evidence, WeightedFit, Classifier):
    """L2-loss linear SVM, one-vs-rest, with Platt's probabilities (module docstring).

    Args:
        C: the weight of the squared hinge loss against the penalty ``w . w / 2``, > 0.
        max_iter: most Newton passes over the data, >= 1 (the line searches' passes apart).
        tol: the fit has converged when the largest Newton step is at most
            ``tol (1 + max |w|)``, >= 0.
        folds: the folds of the decision values Platt's sigmoids are fitted on, >= 2.
        key: a unique, non-NULL integer or string column ordering the rows that deal the
            folds by its MD5 (as ``wml.assign_folds(..., key=key)``); None: the rows' scan
            order (module docstring).
        categorical, numeric: columns to model as categorical / numeric whatever their type
            (stats/features.py).
        class_weight: None, ``"balanced"`` or a mapping class -> weight: every row of a class
            counts as that weight, times its ``sample_weight`` (stats/weights.py), in the
            SVMs and in the sigmoids' fit alike.
    """

    kind = "linear_svm"
    state_class = LinearSvmState

    def __init__(
        self,
        *,
        C: float = 1.0,
        max_iter: int = 100,
        tol: float = 1e-10,
        folds: int = 5,
        key: str | None = None,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        keep_checked(self, LinearSVM.kind, C=C, max_iter=max_iter, tol=tol, folds=folds, key=key)

    def key_columns(self) -> list[str]:
        """The Platt folds' key, never a feature (stats/keys.py)."""
        return [] if self.key is None else [self.key]

    def _learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> LinearSvmState:
        """The design (one count scan, one moments scan), the Newton and line passes of the
        model's SVM and each Platt fold's at once, then the sigmoids' passes; writes the
        ``classes``, ``design`` and ``coefficients`` tables (module docstring)."""
        dealt = linear_svm_platt.folded(warehouse, training, self.folds, self.key)
        design = Design.learn(warehouse, training, check)
        classes = training.classes[0]
        passes = MarginPass(design, dealt.training, len(classes), dealt.rest())
        solution, *folds = solve(warehouse, passes, self.C, self.max_iter, self.tol)
        sigmoids = linear_svm_platt.sigmoids(
            warehouse, passes, dealt, [f.coefficients for f in folds], self.max_iter, self.tol
        )
        design.write(warehouse, tables.table("design"))
        full = np.zeros((len(classes), design.width))
        full[passes.scored] = solution.coefficients
        write_classes(warehouse, tables.table("classes"), training, full[:, 0])
        rows = [
            (0, k, j, float(b), None, None, None)
            for r, k in enumerate(passes.scored)
            for j, b in enumerate(solution.coefficients[r])
        ]
        write_coefficients(warehouse, tables.table("coefficients"), rows)
        return LinearSvmState(
            n_iter=solution.n_iter,
            line_passes=solution.line_passes,
            converged=solution.converged,
            columns=tuple(design.names),
            classes=tuple(passes.scored),
            coefficients=tuple(map(tuple, solution.coefficients.tolist())),
            sigmoids=tuple(map(tuple, sigmoids.tolist())),
        )

    # -- scoring ------------------------------------------------------------------------------
    def _decision_values(
        self, warehouse: Warehouse, record: ModelRecord, source: Source
    ) -> list[exp.Expression]:
        """Each scored class's decision value over the row ``s``: its intercept and one term
        per attribute, added in a fixed order."""
        terms = self._terms(warehouse, record, source)
        learned: LinearSvmState = record.state.learned
        return [balanced_sum([t.per_class[k] for t in terms]) for k in learned.classes]

    def _scores(self, context: ScoringContext, record: ModelRecord, source: Source) -> Scores:
        """Platt's probability of each class (module docstring), each scored class's decision
        value computed once per row (step ``wml_derived``), in every dialect."""
        learned: LinearSvmState = record.state.learned
        values = self._decision_values(context.warehouse, record, source)
        derived = [alias(f, f"wml_f_{r}") for r, f in enumerate(values)]
        sigmoid = [
            linear_svm_platt.probability(column(f"wml_f_{r}", "s"), a, b)
            for r, (a, b) in enumerate(learned.sigmoids)
        ]
        if len(record.classes) == 2:
            sigmoid = [exp.Sub(this=templates.literal(1.0), expression=sigmoid[0].copy()), *sigmoid]
        return ClassProbabilities(sigmoid, derived=derived)

    # -- the fitted model's numbers ---------------------------------------------------------
    def model_section(self, con: Connectable) -> ModelSection:
        """The coefficients by term (linear_design.coefficient_table) and each scored class's
        Platt sigmoid."""
        section = super().model_section(con)
        labels = [str(self.classes_[k]) for k in self._scored_classes()]
        a, b = self.sigmoids_.T
        sigmoids = pa.table({"class": labels, "A": a, "B": b})
        note = (
            "P(class) = 1 / (1 + exp(A f + B)) of the class's decision value f (its score), "
            "renormalised over the classes when there are more than two"
        )
        return dataclasses.replace(
            section, parts=[*section.parts, TablePart("Platt sigmoids", sigmoids, note)]
        )

    @property
    def sigmoids_(self) -> np.ndarray:
        """Each scored class's Platt sigmoid ``(A, B)`` (rows as :attr:`coef_`)."""
        return np.array(self._report.sigmoids)
