"""Linear discriminant analysis from one SQL pass of per-class counts, sums and cross-products.

Features follow the linear families' design rules (models/learners/shared/design.py, which
states them), but for one: a categorical attribute's first level (in the order of its text) is
its reference and has no indicator (scikit-learn's ``OneHotEncoder(drop="first")``), since
indicators of every level would sum to 1 and leave the within-class covariance singular. A
NULL or unseen categorical value has every indicator 0, as the reference level; a NULL numeric
value is the training mean (0 after scaling).

The model is scikit-learn's ``LinearDiscriminantAnalysis(solver="lsqr", shrinkage=...)`` on
that design: with ``n_k`` training rows of class k among ``n``,

* prior ``pi_k = n_k / n``, or the given ``priors`` (scikit-learn's ``priors=``: a sequence in
  class order or a mapping by label, each > 0, summing to 1 within 1e-5: scikit-learn
  renormalises beyond that, with a warning, where the model refuses them); mean ``m_k`` of the
  design columns over class k's rows;
* class covariance ``S_k = Q_k / n_k - m_k m_k'`` (``Q_k`` the sum of the rows' cross-products
  x x'), shrunk by a float ``shrinkage`` a as ``(1 - a) S_k + a (trace(S_k) / p) I`` (p design
  columns; scikit-learn's ``shrunk_covariance``), or with ``shrinkage="auto"`` by Ledoit and
  Wolf's estimate on the class's rows standardised by its own means and deviations
  (models/learners/linear/ledoit_wolf.py: one more pass, of their fourth moments), and pooled as
  ``S = sum_k pi_k S_k``;
* coefficients ``W = lstsq(S, M')'`` (M the class means, one row per class; the least-squares
  solution of least norm when S is singular) and intercepts
  ``b_k = -m_k . w_k / 2 + ln pi_k``.

Each class's score is ``b_k + w_k . x`` and the probabilities its softmax, as scikit-learn's
(whose binary model keeps one vector, ``w_1 - w_0``, and gives the same probabilities).

One pass (:func:`class_sums`, after the design's own count and moments scans) groups the
design step of the Newton passes (models/learners/linear/newton_sums.py) by ``GROUPING SETS`` of the
class with none, each one and each pair of the categorical attributes' level numbers, summing
the count, each standardised numeric and each pair's product: every entry of each class's
``n_k``, sums and ``Q_k``. The sums are DOUBLE, in the engine's order (a relaxation of the
exact sums of the counting families, docs/ARCHITECTURE.md): the standardised values are of
order 1, so the probabilities agree to 1e-12 across runs and thread counts.

The method has no weighted form here (``sample_weight`` and ``class_weight`` are refused by
every call that takes them, the constructor too: models/capabilities.py ``require_weights``),
and no update.

Parameter tables (each led by ``wml_part``, 0 for a fitted model), as the logistic
regression's (models/learners/linear/logistic_regression.py): ``classes`` (the intercept as
log_prior), ``design`` (the reference levels left out) and ``coefficients`` (every class;
std_error, z_value and p_value NULL).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.errors import ParameterError
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import AdditiveScores
from warehouse_ml.models.inspection.sections import ModelSection, TablePart
from warehouse_ml.models.learners.linear import ledoit_wolf
from warehouse_ml.models.learners.linear.linear_discriminant_state import LinearDiscriminantState
from warehouse_ml.models.learners.linear.newton_sums import (
    design_step,
    fill_products,
    grouped_columns,
    grouping_sets,
    level_columns,
    product_sums,
)
from warehouse_ml.models.learners.linear.scores import LinearScores
from warehouse_ml.models.learners.shared.design import (
    Design,
    write_classes,
    write_coefficients,
)
from warehouse_ml.models.training import ClassCount, Training
from warehouse_ml.sqlgen.templates import alias, column
from warehouse_ml.stats.features import NUMERIC
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.ownership import Staging

DESIGN, SUMS = "wml_design", "wml_n"

AUTO = "auto"
"""The ``shrinkage`` setting of Ledoit and Wolf's shrinkage
(models/learners/linear/ledoit_wolf.py)."""

PRIORS_TOLERANCE = 1e-5
"""Given priors must sum to 1 within this (scikit-learn renormalises beyond it, with a
warning; the model refuses them)."""


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


def class_moments(sums: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each class's rows (classes), means (classes x p) and population covariance
    ``Q_k / n_k - m_k m_k'`` (classes x p x p) from :func:`class_sums`' matrices."""
    counts = sums[:, 0, 0]
    means = sums[:, 0, 1:] / counts[:, None]
    covariances = sums[:, 1:, 1:] / counts[:, None, None] - np.einsum("ki,kj->kij", means, means)
    return counts, means, covariances


def fixed_shrinkage(covariance: np.ndarray, shrinkage: float) -> np.ndarray:
    """``covariance`` shrunk by the fraction ``shrinkage`` towards ``trace / p`` times the
    identity (scikit-learn's ``shrunk_covariance``)."""
    p = len(covariance)
    target = np.trace(covariance) / p
    return (1.0 - shrinkage) * covariance + shrinkage * target * np.eye(p)


def discriminant(priors: np.ndarray, means: np.ndarray, covariances: np.ndarray) -> np.ndarray:
    """Every class's intercept and coefficients (classes x (1 + p)) from the ``priors``, the
    class ``means`` and the classes' (shrunk) ``covariances``, pooled by the priors (module
    docstring)."""
    p = means.shape[1]
    pooled = np.einsum("k,kij->ij", priors, covariances)
    coefficients = np.linalg.lstsq(pooled, means.T, rcond=None)[0].T if p else means.copy()
    intercepts = -0.5 * np.einsum("kj,kj->k", means, coefficients) + np.log(priors)
    return np.column_stack([intercepts, coefficients])


def checked_priors(priors: Any) -> list[float] | dict[str, float] | None:
    """A ``priors`` setting: None, a sequence of priors in class order or a mapping class ->
    prior (keys kept as text, as the catalog stores them), each a finite number > 0, summing
    to 1 within :data:`PRIORS_TOLERANCE`; a ParameterError otherwise."""
    if priors is None:
        return None
    if isinstance(priors, Mapping):
        items = [(str(label), prior) for label, prior in priors.items()]
    elif isinstance(priors, Sequence) and not isinstance(priors, str):
        items = list(enumerate(priors))
    else:
        raise ParameterError(
            "priors must be None, a mapping class -> prior or a sequence of priors in class "
            f"order, got {priors!r}"
        )
    if not items:
        raise ParameterError(f"priors must name at least one class, got {priors!r}")
    for key, prior in items:
        if isinstance(prior, bool) or not isinstance(prior, (int, float)):
            raise ParameterError(f"priors[{key!r}] must be a number, got {prior!r}")
        if not 0 < prior < math.inf:
            raise ParameterError(
                f"priors[{key!r}] must be a finite number > 0, got {prior!r} (a class of prior "
                "0 is never predicted and its log prior, -inf, cannot be scored: leave its "
                "rows out of the source instead)"
            )
    total = math.fsum(float(prior) for _, prior in items)
    if abs(total - 1.0) > PRIORS_TOLERANCE:
        raise ParameterError(f"priors must sum to 1 (within {PRIORS_TOLERANCE}), got {total!r}")
    if isinstance(priors, Mapping):
        return {key: float(prior) for key, prior in items}
    return [float(prior) for _, prior in items]


def class_priors(
    priors: list[float] | dict[str, float] | None, classes: Sequence[ClassCount]
) -> np.ndarray:
    """Each class's prior, in classes_ order: the checked ``priors`` setting, or each class's
    share of the rows; a ParameterError when the setting does not give one per class."""
    labels = [c.label for c in classes]
    if priors is None:
        counts = np.array([float(c.n) for c in classes])
        return counts / counts.sum()
    if isinstance(priors, list):
        if len(priors) != len(labels):
            raise ParameterError(
                f"priors has {len(priors)} values; expected one per class of the target, "
                f"{len(labels)}: {labels}"
            )
        return np.array(priors)
    unknown = sorted(set(priors) - set(labels))
    if unknown:
        raise ParameterError(
            f"priors names {unknown}, which are not classes of the target; expected one prior "
            f"per class: {labels}"
        )
    missing = [label for label in labels if label not in priors]
    if missing:
        raise ParameterError(
            f"priors names no prior of class(es) {missing}; expected one per class of the "
            f"target: {labels}"
        )
    return np.array([priors[label] for label in labels])


class LinearDiscriminant(LinearScores, AdditiveScores, Classifier):
    """Linear discriminant analysis, as scikit-learn's with ``solver="lsqr"`` (module
    docstring).

    Args:
        shrinkage: None, a number in [0, 1]: each class's covariance shrunk towards a
            multiple of the identity by this fraction before pooling (scikit-learn's), or
            ``"auto"``: by Ledoit and Wolf's fraction (scikit-learn's ``"auto"``).
        priors: None (each class's share of the rows), a sequence of priors in class order
            or a mapping class -> prior: each > 0, summing to 1 within 1e-5 (a class of
            prior 0 would have the log prior -inf: leave its rows out instead).
        categorical, numeric: columns to model as categorical / numeric whatever their type
            (stats/features.py).
        class_weight: None only: the method has no weighted form here (any other value is a
            NotSupportedError, as ``sample_weight`` is everywhere).
    """

    kind = "linear_discriminant"
    state_class = LinearDiscriminantState

    def __init__(
        self,
        *,
        shrinkage: float | str | None = None,
        priors: Sequence[float] | Mapping[Any, float] | None = None,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        if (
            shrinkage is not None
            and shrinkage != AUTO
            and (
                isinstance(shrinkage, bool)
                or not isinstance(shrinkage, (int, float))
                or not 0 <= shrinkage <= 1
            )
        ):
            raise ParameterError(
                f"shrinkage must be None, 'auto' or a number in [0, 1], got {shrinkage!r}"
            )
        self.shrinkage = shrinkage if shrinkage in (None, AUTO) else float(shrinkage)
        self.priors = checked_priors(priors)

    def _learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> LinearDiscriminantState:
        """The design (one count scan, one moments scan), then the one pass of
        :func:`class_sums`; writes the ``classes``, ``design`` and ``coefficients`` tables
        (module docstring)."""
        design = Design.learn(warehouse, training, check).without_references()
        priors = class_priors(self.priors, training.classes[0])
        counts, means, covariances = class_moments(class_sums(warehouse, design, training))
        if self.shrinkage == AUTO:
            scales, constant = ledoit_wolf.class_scales(counts, means, covariances)
            fourth = ledoit_wolf.fourth_moments(warehouse, design, training, means, scales)
            covariances = np.array(
                [
                    ledoit_wolf.shrunk_covariance(*class_parts)
                    for class_parts in zip(
                        covariances, scales, constant, counts, fourth, strict=True
                    )
                ]
            )
        elif self.shrinkage is not None:
            covariances = np.array([fixed_shrinkage(c, self.shrinkage) for c in covariances])
        full = discriminant(priors, means, covariances)
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
    def _scored_classes(self) -> range:
        """Every class has its own row of coefficients."""
        return range(len(self.classes_))

    def model_section(self, con: Connectable) -> ModelSection:
        """The coefficients by term (``LinearScores.model_section``), then each class's
        prior."""
        section = super().model_section(con)
        priors = pa.table(
            {
                "class": pa.array([str(c) for c in self.classes_]),
                "prior": pa.array(self.priors_, pa.float64()),
            }
        )
        note = "each class's share of the training rows, or the priors given to the model"
        return dataclasses.replace(
            section, parts=[*section.parts, TablePart("Priors", priors, note)]
        )

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
        """Each class's prior, in classes_ order: the given ``priors``, or its share of the
        training rows."""
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

    def _scored_classes(self) -> list[int]:
        """Every class: the state holds each class's discriminant."""
        return list(range(len(self.classes_)))
