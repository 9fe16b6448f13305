"""The SQL passes of the linear SVM's finite Newton method (models/learners/linear_svm.py).

Each scored class k is one binary problem (one-vs-rest; two classes: class 1 against class 0):
its target ``y = 1`` on the class's rows and ``-1`` elsewhere, its decision value ``o = w_k . x``
over the linear families' design (models/learners/linear_design.py) with the intercept a
column of 1. A row is a margin row of class k when ``y o < 1``; only margin rows enter the
squared hinge loss ``max(0, 1 - y o)^2`` and its derivatives. Several models over the same
rows and design, each weighing the rows its own way (the model's own SVM and its Platt folds'
SVMs, models/learners/linear_svm_platt.py), have one problem per model and scored class, and
a pass sums any set of problems in one statement.

* :meth:`MarginPass.run`, at the coefficients ``W`` (one row per problem, written into the
  query as literals): per problem, over its margin rows with their weights ``c`` (the row's
  weight in the problem's model), the cross-products ``sum c x x'``, the vector
  ``sum c (o - y) x`` and the loss ``sum c (1 - y o)^2``. The statement groups by the
  ``GROUPING SETS`` of the Newton pass of the logistic regression
  (models/learners/newton_sums.py: ``()``, each categorical attribute's level number and
  each pair of them), every problem in the same statement.
* :meth:`MarginPass.line`, along each problem's line ``w_k + t d_k`` at several candidate t
  at once: over the margin rows at each t, ``sum c (u - y) delta`` and ``sum c delta^2`` with
  ``u = o + t delta`` the decision value at t and ``delta = d_k . x`` (the derivatives of the
  loss along the line, up to the factor 2); and, between consecutive candidates, the least and
  the largest breakpoint ``(1 - y o) / (y delta)`` of the rows of positive weight (the t where
  a row enters or leaves the margin: sql/models/learners/linear_svm/svm_breakpoint.sql), one
  plain aggregate over every problem and candidate.

The sums are DOUBLE, in the engine's order (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
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
    """One :meth:`MarginPass.run`'s sums, per problem: ``products`` (problems x d x d,
    ``sum c x x'``), ``residuals`` (problems x d, ``sum c (o - y) x``) and ``loss`` (problems,
    ``sum c (1 - y o)^2``), each over the problem's margin rows."""

    products: np.ndarray
    residuals: np.ndarray
    loss: np.ndarray


@dataclass(frozen=True)
class LineSums:
    """One :meth:`MarginPass.line`'s sums, per problem (rows) and candidate t
    (columns): ``slope`` ``sum c (u - y) delta`` and ``curve`` ``sum c delta^2`` over the
    margin rows at t; per gap between consecutive candidates, ``low`` and ``high``, the least
    and the largest breakpoint strictly inside it (NaN: none)."""

    slope: np.ndarray
    curve: np.ndarray
    low: np.ndarray
    high: np.ndarray


class MarginPass:
    """The passes of one or more models over one design ``design`` and ``training``'s rows,
    ``n_classes`` classes (2: one scored class, class 1; more: every class against the rest).
    Model 0 weighs each row by its weight (the design step's ``wml_w``), model m >= 1 by
    ``weights[m - 1]`` (an expression over the source row). Problem r is the pair
    :attr:`problems` ``[r]`` (model, scored class); a pass sums the problems it is given, so
    models that share the rows (the Platt folds' SVMs beside the model's own) share its scan."""

    def __init__(
        self,
        design: Design,
        training: Training,
        n_classes: int,
        weights: Sequence[exp.Expression] = (),
    ) -> None:
        self.design = design
        self.training = training
        self.weights = list(weights)
        self.scored = [1] if n_classes == 2 else list(range(n_classes))
        self.models = 1 + len(self.weights)
        self.problems = [(m, k) for m in range(self.models) for k in self.scored]
        self.numerics = sum(1 for f in design.features if f.kind == NUMERIC)
        self.categoricals = len(design.features) - self.numerics

    def _weight(self, r: int) -> exp.Column:
        """Problem ``r``'s row weight: its model's column of the design step."""
        model = self.problems[r][0]
        return column("wml_w" if model == 0 else step_name("w", model))

    def _design(self) -> exp.Query:
        return design_step(self.design, self.training, self.weights)

    def run(
        self, warehouse: Warehouse, coefficients: np.ndarray, problems: Sequence[int]
    ) -> MarginSums:
        """The sums of ``problems`` (indices into :attr:`problems`) at their ``coefficients``
        (one row per problem), in that order."""
        rows = warehouse.fetch_tree(self.query(coefficients, problems)).to_pylist()
        m, d = len(problems), self.design.width
        products, residuals, loss = np.zeros((m, d, d)), np.zeros((m, d)), np.zeros(m)
        numeric_at = [
            self.design.indices(f.name)[0] for f in self.design.features if f.kind == NUMERIC
        ]
        level_at = [self.design.indices(f.name) for f in self.design.features if f.kind != NUMERIC]
        for row in rows:
            cols = grouped_columns(row, level_at)
            if cols is None:
                continue
            for i, r in enumerate(problems):
                fill_products(products[i], row, step_name("h", r), cols, numeric_at)
                if len(cols) < 2:
                    fill_vector(residuals[i], row, step_name("r", r), cols, numeric_at)
                if not cols:
                    loss[i] = row[sum_name(step_name("l", r))] or 0.0
        return MarginSums(products, residuals, loss)

    def query(self, coefficients: np.ndarray, problems: Sequence[int]) -> exp.Query:
        """:meth:`run`'s statement (module docstring)."""
        scores = [
            alias(linear_score(self.design, b), step_name("o", r))
            for r, b in zip(problems, coefficients, strict=True)
        ]
        weights = [
            *(column(step_name("z", i)) for i in range(self.numerics)),
            *level_columns(self.categoricals),
        ]
        sums: list[exp.Expression] = [alias(c, c.name) for c in level_columns(self.categoricals)]
        for r in problems:
            target, score = _target(self.problems[r][1]), column(step_name("o", r))
            margin = _margin(self._weight(r), target, score)
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
            (DESIGN, self._design()),
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
        problems: Sequence[int],
    ) -> LineSums:
        """The :class:`LineSums` of ``problems`` (indices into :attr:`problems`; one row of
        ``coefficients``, ``directions`` and ``candidates`` each) along each one's line
        ``w + t d`` at its increasing candidates t, in one pass (module docstring). A row of
        weight 0 in a problem has no breakpoint in it."""
        scores, sums = [], []
        for i, r in enumerate(problems):
            o, delta = column(step_name("o", r)), column(step_name("e", r))
            target = column(step_name("y", r))
            scores += [
                alias(linear_score(self.design, coefficients[i]), step_name("o", r), copy=False),
                alias(linear_score(self.design, directions[i]), step_name("e", r), copy=False),
                alias(_target(self.problems[r][1]), step_name("y", r), copy=False),
            ]
            for j, t in enumerate(candidates[i]):
                u = exp.Paren(
                    this=exp.Add(
                        this=o.copy(), expression=exp.Mul(this=literal(float(t)), expression=delta)
                    )
                )
                margin = _margin(self._weight(r), target, u)
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
            for j, (low, high) in enumerate(itertools.pairwise(candidates[i])):
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
                    weight=self._weight(r),
                    target=column(step_name("y", r)),
                    score=column(step_name("o", r)),
                    delta=column(step_name("e", r)),
                ),
                step_name("b", r),
                copy=False,
            )
            for r in problems
        ]
        query = (
            exp.select(*sums, copy=False)
            .from_(exp.to_table(BREAKS), copy=False)
            .with_(DESIGN, as_=self._design(), copy=False)
            .with_(SCORES, as_=layer(DESIGN, scores), copy=False)
            .with_(BREAKS, as_=layer(SCORES, breakpoints), copy=False)
        )
        (row,) = warehouse.fetch_tree(query).to_pylist()
        t = candidates.shape[1]

        def read(name: str, n: int, empty: float) -> np.ndarray:
            return np.array(
                [
                    [empty if row[f"{name}_{r}_{j}"] is None else row[f"{name}_{r}_{j}"]
                     for j in range(n)]
                    for r in problems
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


def _margin(
    weight: exp.Expression, target: exp.Expression, score: exp.Expression
) -> exp.Expression:
    """The row's ``weight`` when ``target * score < 1`` (a margin row), else 0."""
    return templates.expression(
        "svm_margin_weight", weight=weight.copy(), target=target.copy(), score=score.copy()
    )


def _minus(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Paren(this=exp.Sub(this=a.copy(), expression=b.copy()))
