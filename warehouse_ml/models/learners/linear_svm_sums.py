"""The SQL passes of the linear SVM's finite Newton method (models/learners/linear_svm.py).

Each scored class k is one binary problem (one-vs-rest; two classes: class 1 against class 0):
its target ``y = 1`` on the class's rows and ``-1`` elsewhere, its decision value ``o = w_k . x``
over the linear families' design (models/learners/linear_design.py) with the intercept a
column of 1. A row is a margin row of class k when ``y o < 1``; only margin rows enter the
squared hinge loss ``max(0, 1 - y o)^2`` and its derivatives.

* :meth:`MarginPass.run`, at the coefficients ``W`` (one row per scored class, written into
  the query as literals): per class, over its margin rows with their weights ``c`` (the
  design step's ``wml_w``: 1, as the learner fits no weights), the cross-products
  ``sum c x x'``, the vector ``sum c (o - y) x`` and the loss ``sum c (1 - y o)^2``. The
  statement groups by the ``GROUPING SETS`` of the Newton pass of the logistic regression
  (models/learners/newton_sums.py: ``()``, each categorical attribute's level number and
  each pair of them), every class in the same statement.
* :meth:`MarginPass.line`, at a point ``w_k + t_k d_k`` of each class's line: over the margin
  rows there, ``sum c (u - y) delta`` and ``sum c delta^2`` with ``u`` the decision value at
  the point and ``delta = d_k . x`` (the derivatives of the loss along the line, up to the
  factor 2), one plain aggregate over every class.

The sums are DOUBLE, in the engine's order (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.linear_design import Design
from warehouse_ml.models.learners.newton_sums import (
    design_step,
    fill_products,
    fill_vector,
    grouped_columns,
    grouping_sets,
    level_columns,
    linear_score,
    product_sums,
    step_name,
    sum_name,
    vector_sums,
)
from warehouse_ml.models.scoring.steps import layer
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import NUMERIC

DESIGN, SCORES, WEIGHTS = "wml_design", "wml_scores", "wml_weights"


@dataclass(frozen=True)
class MarginSums:
    """One :meth:`MarginPass.run`'s sums, per scored class: ``products`` (classes x d x d,
    ``sum c x x'``), ``residuals`` (classes x d, ``sum c (o - y) x``) and ``loss`` (classes,
    ``sum c (1 - y o)^2``), each over the class's margin rows."""

    products: np.ndarray
    residuals: np.ndarray
    loss: np.ndarray


class MarginPass:
    """The passes of a model with design ``design`` over ``training``'s rows, ``n_classes``
    classes (2: one scored class, class 1; more: every class against the rest)."""

    def __init__(self, design: Design, training: Training, n_classes: int) -> None:
        self.design = design
        self.training = training
        self.scored = [1] if n_classes == 2 else list(range(n_classes))
        self.numerics = sum(1 for f in design.features if f.kind == NUMERIC)
        self.categoricals = len(design.features) - self.numerics

    def run(self, warehouse: Warehouse, coefficients: np.ndarray) -> MarginSums:
        """The sums at ``coefficients`` (one row per scored class)."""
        rows = warehouse.fetch_tree(self.query(coefficients)).to_pylist()
        m, d = len(self.scored), self.design.width
        products, residuals, loss = np.zeros((m, d, d)), np.zeros((m, d)), np.zeros(m)
        numeric_at = [
            self.design.indices(f.name)[0] for f in self.design.features if f.kind == NUMERIC
        ]
        level_at = [self.design.indices(f.name) for f in self.design.features if f.kind != NUMERIC]
        for row in rows:
            cols = grouped_columns(row, level_at)
            if cols is None:
                continue
            for r in range(m):
                fill_products(products[r], row, step_name("h", r), cols, numeric_at)
                if len(cols) < 2:
                    fill_vector(residuals[r], row, step_name("r", r), cols, numeric_at)
                if not cols:
                    loss[r] = row[sum_name(step_name("l", r))] or 0.0
        return MarginSums(products, residuals, loss)

    def query(self, coefficients: np.ndarray) -> exp.Query:
        """:meth:`run`'s statement (module docstring)."""
        scores = [
            alias(linear_score(self.design, b), step_name("o", r))
            for r, b in enumerate(coefficients)
        ]
        weights = [
            *(column(step_name("z", i)) for i in range(self.numerics)),
            *level_columns(self.categoricals),
        ]
        sums: list[exp.Expression] = [alias(c, c.name) for c in level_columns(self.categoricals)]
        for r, k in enumerate(self.scored):
            target, score = _target(k), column(step_name("o", r))
            margin = _margin(target, score)
            weights += [
                alias(margin, step_name("h", r)),
                alias(
                    exp.Mul(this=margin.copy(), expression=_minus(score, target)),
                    step_name("r", r),
                ),
                alias(
                    exp.Mul(
                        this=margin.copy(),
                        expression=exp.Pow(
                            this=_minus(literal(1.0), exp.Mul(this=target, expression=score)),
                            expression=literal(2),
                        ),
                    ),
                    step_name("l", r),
                ),
            ]
            h, res, lo = (column(step_name(p, r)) for p in "hrl")
            sums += product_sums(h, step_name("h", r), self.numerics)
            sums += vector_sums(res, step_name("r", r), self.numerics)
            sums.append(alias(exp.Sum(this=lo), sum_name(step_name("l", r))))
        final = exp.select(*sums).from_(exp.to_table(WEIGHTS))
        codes = level_columns(self.categoricals)
        if codes:
            sets = [[], *([c] for c in codes), *itertools.combinations(codes, 2)]
            final = final.group_by(grouping_sets(sets), copy=False)
        steps = [
            (DESIGN, design_step(self.design, self.training)),
            (SCORES, layer(DESIGN, scores)),
            (WEIGHTS, exp.select(*weights).from_(exp.to_table(SCORES))),
        ]
        for name, step in steps:
            final = final.with_(name, as_=step, copy=False)
        return final

    def line(
        self, warehouse: Warehouse, points: np.ndarray, directions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per scored class, ``sum c (u - y) delta`` and ``sum c delta^2`` over the margin
        rows at ``points`` (one row per class), ``delta`` the decision value of
        ``directions`` (module docstring)."""
        items, sums = [], []
        for r, k in enumerate(self.scored):
            u, delta = column(step_name("o", r)), column(step_name("e", r))
            items += [
                alias(linear_score(self.design, points[r]), step_name("o", r)),
                alias(linear_score(self.design, directions[r]), step_name("e", r)),
            ]
            margin = _margin(_target(k), u)
            slope = exp.Mul(this=_minus(u, _target(k)), expression=delta)
            sums += [
                alias(exp.Sum(this=exp.Mul(this=margin, expression=slope)), f"wml_slope_{r}"),
                alias(
                    exp.Sum(
                        this=exp.Mul(
                            this=margin.copy(),
                            expression=exp.Mul(this=delta.copy(), expression=delta.copy()),
                        )
                    ),
                    f"wml_curve_{r}",
                ),
            ]
        query = (
            exp.select(*sums)
            .from_(exp.to_table(SCORES))
            .with_(DESIGN, as_=design_step(self.design, self.training), copy=False)
            .with_(SCORES, as_=layer(DESIGN, items), copy=False)
        )
        (row,) = warehouse.fetch_tree(query).to_pylist()
        m = len(self.scored)
        slope = np.array([row[f"wml_slope_{r}"] or 0.0 for r in range(m)])
        curve = np.array([row[f"wml_curve_{r}"] or 0.0 for r in range(m)])
        return slope, curve


def _target(k: int) -> exp.Expression:
    """The row's target of class ``k``'s problem: 1 on its rows, -1 elsewhere."""
    return templates.expression("svm_target", class_index=column("wml_y"), k=literal(k))


def _margin(target: exp.Expression, score: exp.Expression) -> exp.Expression:
    """The row's weight when ``target * score < 1`` (a margin row), else 0."""
    return templates.expression(
        "svm_margin_weight", weight=column("wml_w"), target=target.copy(), score=score.copy()
    )


def _minus(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Paren(this=exp.Sub(this=a.copy(), expression=b.copy()))
