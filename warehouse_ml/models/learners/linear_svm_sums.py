"""The SQL passes of the linear SVM's finite Newton method (models/learners/linear_svm.py).

Each scored class k is one binary problem (one-vs-rest; two classes: class 1 against class 0):
its target ``y = 1`` on the class's rows and ``-1`` elsewhere, its decision value ``o = w_k . x``
over the linear families' design (models/learners/linear_design.py) with the intercept a
column of 1. A row is a margin row of class k when ``y o < 1``; only margin rows enter the
squared hinge loss ``max(0, 1 - y o)^2`` and its derivatives.

* :meth:`MarginPass.run`, at the coefficients ``W`` (one row per scored class, written into
  the query as literals): per class, over its margin rows with their weights ``c`` (the
  design step's ``wml_w``, the row's weight), the cross-products
  ``sum c x x'``, the vector ``sum c (o - y) x`` and the loss ``sum c (1 - y o)^2``. The
  statement groups by the ``GROUPING SETS`` of the Newton pass of the logistic regression
  (models/learners/newton_sums.py: ``()``, each categorical attribute's level number and
  each pair of them), every class in the same statement.
* :meth:`MarginPass.line`, along each class's line ``w_k + t d_k`` at several candidate t at
  once: over the margin rows at each t, ``sum c (u - y) delta`` and ``sum c delta^2`` with
  ``u = o + t delta`` the decision value at t and ``delta = d_k . x`` (the derivatives of the
  loss along the line, up to the factor 2); and, between consecutive candidates, the least and
  the largest breakpoint ``(1 - y o) / (y delta)`` (the t where a row enters or leaves the
  margin: sql/models/learners/linear_svm/svm_breakpoint.sql), one plain aggregate over every
  class and candidate.

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

DESIGN, SCORES, BREAKS, WEIGHTS = "wml_design", "wml_scores", "wml_breaks", "wml_weights"


@dataclass(frozen=True)
class MarginSums:
    """One :meth:`MarginPass.run`'s sums, per scored class: ``products`` (classes x d x d,
    ``sum c x x'``), ``residuals`` (classes x d, ``sum c (o - y) x``) and ``loss`` (classes,
    ``sum c (1 - y o)^2``), each over the class's margin rows."""

    products: np.ndarray
    residuals: np.ndarray
    loss: np.ndarray


@dataclass(frozen=True)
class LineSums:
    """One :meth:`MarginPass.line`'s sums, per scored class (rows) and candidate t
    (columns): ``slope`` ``sum c (u - y) delta`` and ``curve`` ``sum c delta^2`` over the
    margin rows at t; per gap between consecutive candidates, ``low`` and ``high``, the least
    and the largest breakpoint strictly inside it (NaN: none)."""

    slope: np.ndarray
    curve: np.ndarray
    low: np.ndarray
    high: np.ndarray


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
        final = exp.select(*sums).from_(exp.to_table(WEIGHTS), copy=False)
        codes = level_columns(self.categoricals)
        if codes:
            sets = [[], *([c] for c in codes), *itertools.combinations(codes, 2)]
            final = final.group_by(grouping_sets(sets), copy=False)
        steps = [
            (DESIGN, design_step(self.design, self.training)),
            (SCORES, layer(DESIGN, scores)),
            (WEIGHTS, exp.select(*weights).from_(exp.to_table(SCORES), copy=False)),
        ]
        for name, step in steps:
            final = final.with_(name, as_=step, copy=False)
        return final

    def line(
        self,
        warehouse: Warehouse,
        coefficients: np.ndarray,
        directions: np.ndarray,
        candidates: np.ndarray,
    ) -> LineSums:
        """Each scored class's :class:`LineSums` along its line ``w_k + t d_k`` (one row of
        ``coefficients`` and ``directions`` per class) at its increasing ``candidates`` t
        (classes x T), in one pass (module docstring)."""
        scores, sums = [], []
        for r, k in enumerate(self.scored):
            o, delta = column(step_name("o", r)), column(step_name("e", r))
            target = column(step_name("y", r))
            scores += [
                alias(linear_score(self.design, coefficients[r]), step_name("o", r), copy=False),
                alias(linear_score(self.design, directions[r]), step_name("e", r), copy=False),
                alias(_target(k), step_name("y", r), copy=False),
            ]
            for j, t in enumerate(candidates[r]):
                u = exp.Paren(
                    this=exp.Add(
                        this=o.copy(), expression=exp.Mul(this=literal(float(t)), expression=delta)
                    )
                )
                margin = _margin(target, u)
                slope = exp.Mul(this=_minus(u, target), expression=delta.copy())
                curve = exp.Mul(this=delta.copy(), expression=delta.copy())
                sums += [
                    alias(
                        exp.Sum(this=exp.Mul(this=margin, expression=slope)),
                        f"wml_s_{r}_{j}",
                        copy=False,
                    ),
                    alias(
                        exp.Sum(this=exp.Mul(this=margin.copy(), expression=curve)),
                        f"wml_q_{r}_{j}",
                        copy=False,
                    ),
                ]
            b = column(step_name("b", r))
            for j, (low, high) in enumerate(itertools.pairwise(candidates[r])):
                inside = exp.and_(
                    exp.GT(this=b.copy(), expression=literal(float(low))),
                    exp.LT(this=b.copy(), expression=literal(float(high))),
                    copy=False,
                )
                within = exp.Case().when(inside, b.copy())
                sums += [
                    alias(exp.Min(this=within), f"wml_lo_{r}_{j}", copy=False),
                    alias(exp.Max(this=within.copy()), f"wml_hi_{r}_{j}", copy=False),
                ]
        breakpoints = [
            alias(
                templates.expression(
                    "svm_breakpoint",
                    target=column(step_name("y", r)),
                    score=column(step_name("o", r)),
                    delta=column(step_name("e", r)),
                ),
                step_name("b", r),
                copy=False,
            )
            for r in range(len(self.scored))
        ]
        query = (
            exp.select(*sums, copy=False)
            .from_(exp.to_table(BREAKS), copy=False)
            .with_(DESIGN, as_=design_step(self.design, self.training), copy=False)
            .with_(SCORES, as_=layer(DESIGN, scores), copy=False)
            .with_(BREAKS, as_=layer(SCORES, breakpoints), copy=False)
        )
        (row,) = warehouse.fetch_tree(query).to_pylist()
        m, t = candidates.shape

        def read(name: str, n: int, empty: float) -> np.ndarray:
            return np.array(
                [
                    [empty if row[f"{name}_{r}_{j}"] is None else row[f"{name}_{r}_{j}"]
                     for j in range(n)]
                    for r in range(m)
                ]
            )  # fmt: skip

        return LineSums(
            read("wml_s", t, 0.0),
            read("wml_q", t, 0.0),
            read("wml_lo", t - 1, np.nan),
            read("wml_hi", t - 1, np.nan),
        )


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
