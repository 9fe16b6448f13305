"""Linear discriminant analysis from one SQL pass of per-class counts, sums and cross-products.

Features follow the linear families' design rules (models/learners/linear_design.py, which
states them), but for one: a categorical attribute's first level (in the order of its text) is
its reference and has no indicator (scikit-learn's ``OneHotEncoder(drop="first")``), since
indicators of every level would sum to 1 and leave the within-class covariance singular. A
NULL or unseen categorical value has every indicator 0, as the reference level; a NULL numeric
value is the training mean (0 after scaling).

The model is scikit-learn's ``LinearDiscriminantAnalysis(solver="lsqr", shrinkage=...)`` on
that design: with ``n_k`` training rows of class k among ``n``,

* prior ``pi_k = n_k / n``; mean ``m_k`` of the design columns over class k's rows;
* class covariance ``S_k = Q_k / n_k - m_k m_k'`` (``Q_k`` the sum of the rows' cross-products
  x x'), shrunk by a float ``shrinkage`` a as ``(1 - a) S_k + a (trace(S_k) / p) I`` (p design
  columns; scikit-learn's ``shrunk_covariance``), and pooled as ``S = sum_k pi_k S_k``;
* coefficients ``W = lstsq(S, M')'`` (M the class means, one row per class; the least-squares
  solution of least norm when S is singular) and intercepts
  ``b_k = -m_k . w_k / 2 + ln pi_k``.

Each class's score is ``b_k + w_k . x`` and the probabilities its softmax, as scikit-learn's
(whose binary model keeps one vector, ``w_1 - w_0``, and gives the same probabilities).

One pass (:func:`class_sums`, after the design's own count and moments scans) groups the
design step of the Newton passes (models/learners/newton_sums.py) by ``GROUPING SETS`` of the
class with none, each one and each pair of the categorical attributes' level numbers, summing
the count, each standardised numeric and each pair's product: every entry of each class's
``n_k``, sums and ``Q_k``. The sums are DOUBLE, in the engine's order (a relaxation of the
exact sums of the counting families, docs/ARCHITECTURE.md): the standardised values are of
order 1, so the probabilities agree to 1e-12 across runs and thread counts.

The method has no weighted form here (the fit refuses ``sample_weight`` and ``class_weight``),
and no update.

Parameter tables (each led by ``wml_part``, 0 for a fitted model), as the logistic
regression's (models/learners/logistic_regression.py): ``classes`` (the intercept as
log_prior), ``design`` (the reference levels left out) and ``coefficients`` (every class;
std_error, z_value and p_value NULL).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.errors import ParameterError
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import AdditiveScores
from warehouse_ml.models.learners.linear_design import (
    Design,
    write_classes,
    write_coefficients,
)
from warehouse_ml.models.learners.linear_discriminant_state import LinearDiscriminantState
from warehouse_ml.models.learners.linear_scores import LinearScores
from warehouse_ml.models.learners.newton_sums import (
    design_step,
    fill_products,
    grouped_columns,
    grouping_sets,
    level_columns,
    product_sums,
)
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen.templates import alias, column
from warehouse_ml.stats.features import NUMERIC
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.ownership import Staging

DESIGN, SUMS = "wml_design", "wml_n"


def class_sums(warehouse: Warehouse, design: Design, training: Training) -> np.ndarray:
    """Each class's matrix of sums over its training rows of the design's products (classes x
    width x width; entry (0, 0) the rows, (0, j) the sum of column j, (i, j) of the products
    of columns i and j), from one grouped pass (module docstring)."""
    numeric = [f.name for f in design.features if f.kind == NUMERIC]
    categorical = [f.name for f in design.features if f.kind != NUMERIC]
    codes = level_columns(len(categorical))
    klass = column("wml_y")
    query = (
        exp.select(
            alias(klass, "wml_y"),
            *(alias(c, c.name) for c in codes),
            *product_sums(None, SUMS, len(numeric)),
        )
        .from_(DESIGN)
        .group_by(
            grouping_sets(
                [[klass], *([klass, c] for c in codes)]
                + [[klass, a, b] for i, a in enumerate(codes) for b in codes[i + 1 :]]
            ),
            copy=False,
        )
        .with_(DESIGN, as_=design_step(design, training), copy=False)
    )
    numeric_at = [design.indices(a)[0] for a in numeric]
    level_at = [design.indices(a) for a in categorical]
    sums = np.zeros((len(training.classes[0]), design.width, design.width))
    for row in warehouse.fetch_tree(query).to_pylist():
        cols = grouped_columns(row, level_at)
        if cols is not None:
            fill_products(sums[row["wml_y"]], row, SUMS, cols, numeric_at)
    return sums


def discriminant(
    sums: np.ndarray, shrinkage: float | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The priors (classes), class means (classes x p) and every class's intercept and
    coefficients (classes x (1 + p)) from :func:`class_sums`' matrices (module docstring)."""
    counts = sums[:, 0, 0]
    priors = counts / counts.sum()
    means = sums[:, 0, 1:] / counts[:, None]
    p = means.shape[1]
    pooled = np.zeros((p, p))
    for k, n_k in enumerate(counts):
        covariance = sums[k, 1:, 1:] / n_k - np.outer(means[k], means[k])
        if shrinkage is not None:
            target = np.trace(covariance) / p
            covariance = (1.0 - shrinkage) * covariance + shrinkage * target * np.eye(p)
        pooled += priors[k] * covariance
    coefficients = np.linalg.lstsq(pooled, means.T, rcond=None)[0].T if p else means.copy()
    intercepts = -0.5 * np.einsum("kj,kj->k", means, coefficients) + np.log(priors)
    return priors, means, np.column_stack([intercepts, coefficients])


class LinearDiscriminant(LinearScores, Classifier, AdditiveScores):
    """Linear discriminant analysis, as scikit-learn's with ``solver="lsqr"`` (module
    docstring).

    Args:
        shrinkage: None, or a number in [0, 1]: each class's covariance shrunk towards a
            multiple of the identity by this fraction before pooling (scikit-learn's).
        categorical, numeric: columns to model as categorical / numeric whatever their type
            (stats/features.py).
        class_weight: refused by ``fit`` (the method has no weighted form here).
    """

    kind = "linear_discriminant"
    state_class = LinearDiscriminantState

    def __init__(
        self,
        *,
        shrinkage: float | None = None,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        if shrinkage is not None and (
            isinstance(shrinkage, bool)
            or not isinstance(shrinkage, (int, float))
            or not 0 <= shrinkage <= 1
        ):
            raise ParameterError(f"shrinkage must be None or a number in [0, 1], got {shrinkage!r}")
        self.shrinkage = None if shrinkage is None else float(shrinkage)

    def learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> LinearDiscriminantState:
        """The design (one count scan, one moments scan), then the one pass of
        :func:`class_sums`; writes the ``classes``, ``design`` and ``coefficients`` tables
        (module docstring)."""
        design = Design.learn(warehouse, training, check).without_references()
        priors, means, full = discriminant(class_sums(warehouse, design, training), self.shrinkage)
        design.write(warehouse, tables.table("design"))
        write_classes(warehouse, tables.table("classes"), training, full[:, 0])
        rows = [
            (0, k, j, float(b), None, None, None)
            for k, r in enumerate(full)
            for j, b in enumerate(r)
        ]
        write_coefficients(warehouse, tables.table("coefficients"), rows)
        return LinearDiscriminantState(
            columns=tuple(design.names),
            priors=tuple(priors.tolist()),
            means=tuple(map(tuple, means.tolist())),
            coefficients=tuple(map(tuple, full.tolist())),
        )

    # -- the fitted model's numbers ---------------------------------------------------------
    @property
    def coef_(self) -> np.ndarray:
        """Coefficients of the design, as scikit-learn's ``coef_``: one row per class, or for
        two classes one row, class 1's less class 0's; columns as :attr:`design_names_`."""
        full = np.array(self._report.coefficients)
        return (full[1:] - full[:1] if len(full) == 2 else full)[:, 1:]

    @property
    def intercept_(self) -> np.ndarray:
        """Intercepts, one per row of :attr:`coef_`."""
        full = np.array(self._report.coefficients)
        return (full[1:] - full[:1] if len(full) == 2 else full)[:, 0]

    @property
    def priors_(self) -> np.ndarray:
        """Each class's share of the training rows, in classes_ order."""
        return np.array(self._report.priors)

    @property
    def means_(self) -> np.ndarray:
        """Each class's mean of the design columns (classes x columns)."""
        return np.array(self._report.means)

    @property
    def design_names_(self) -> list[str]:
        """The design's columns: a numeric attribute's name, ``attribute=level`` for an
        indicator (no reference level)."""
        return list(self._report.columns[1:])
