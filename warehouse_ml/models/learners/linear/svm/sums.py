"""The SQL passes of the linear SVM's finite Newton method
(models/learners/linear/svm/linear_svm.py).

Each scored class k is one binary problem (one-vs-rest; two classes: class 1 against class 0):
its target ``y = 1`` on the class's rows and ``-1`` elsewhere, its decision value ``o = w_k . x``
over the linear families' design (models/learners/shared/design.py) with the intercept a
column of 1. A row is a margin row of class k when ``y o < 1``; only margin rows enter the
squared hinge loss ``max(0, 1 - y o)^2`` and its derivatives. Several models over the same
rows and design, each weighing the rows its own way (the model's own SVM and its Platt folds'
SVMs, models/learners/linear/svm/platt.py), have one problem per model and scored class, and
a pass sums any set of problems in one statement.

A pass's rows are the design's rows times its problems: each problem is one row of ``VALUES``
(its index ``wml_p``, model, scored class and the numbers of the pass: coefficients, direction,
candidates), and the statement groups by ``wml_p``, so its size does not grow with the problems
(the model's own and five Platt folds' SVMs of three classes are 18) and the per-problem
expressions are written once, with the problem's numbers read from its columns.

* :meth:`MarginPass.run`, at the coefficients ``W`` (one row per problem): per problem, over
  its margin rows with their weights ``c`` (the row's weight in the problem's model), the
  cross-products ``sum c x x'``, the vector ``sum c (o - y) x`` and the loss
  ``sum c (1 - y o)^2``. The statement groups by problem within the ``GROUPING SETS`` of the
  Newton pass of the logistic regression (models/learners/linear/newton_sums.py: ``()``, each
  categorical attribute's level number and each pair of them).
* :meth:`MarginPass.line`, along each problem's line ``w_k + t d_k`` at several candidate t
  at once: over the margin rows at each t, ``sum c (u - y) delta`` and ``sum c delta^2`` with
  ``u = o + t delta`` the decision value at t and ``delta = d_k . x`` (the derivatives of the
  loss along the line, up to the factor 2); and, between consecutive candidates, the least and
  the largest breakpoint ``(1 - y o) / (y delta)`` of the rows of positive weight (the t where
  a row enters or leaves the margin:
  warehouse_ml/sql/models/learners/linear/svm/svm_breakpoint.sql).

The sums are DOUBLE, in the engine's order (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.linear.newton_sums import (
    design_step,
    fill_products,
    fill_vector,
    grouped_columns,
    grouping_sets,
    level_columns,
    linear_form,
    product_sums,
    step_name,
    sum_name,
    vector_sums,
)
from warehouse_ml.models.learners.shared.design import Design
from warehouse_ml.models.scoring.steps import layer
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import NUMERIC

DESIGN, PROBLEMS, WEIGHTS = "wml_design", "wml_problems", "wml_weights"
BREAKS, CANDIDATES = "wml_breaks", "wml_candidates"


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
        self._design_step: exp.Query | None = None

    @staticmethod
    def _weight_of(model: int) -> exp.Column:
        """Model ``model``'s row weight: its column of the design step."""
        return column("wml_w" if model == 0 else step_name("w", model))

    def _design(self) -> exp.Query:
        """The design step (a copy of the one built for every pass: building it binds each
        Platt fold's weight, a copy costs a tenth of that)."""
        if self._design_step is None:
            self._design_step = design_step(self.design, self.training, self.weights)
        return self._design_step.copy()

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
        position = {int(r): i for i, r in enumerate(problems)}
        for row in rows:
            cols = grouped_columns(row, level_at)
            if cols is None:
                continue
            i = position[row["wml_p"]]
            fill_products(products[i], row, "wml_h", cols, numeric_at)
            if len(cols) < 2:
                fill_vector(residuals[i], row, "wml_r", cols, numeric_at)
            if not cols:
                loss[i] = row[sum_name("wml_l")] or 0.0
        return MarginSums(products, residuals, loss)

    def query(self, coefficients: np.ndarray, problems: Sequence[int]) -> exp.Query:
        """:meth:`run`'s statement (module docstring): the design's rows times the problems,
        each a row of ``VALUES`` (its index ``wml_p``, model, scored class and coefficients
        ``wml_b_<j>``), grouped by problem within each grouping set."""
        d = self.design.width
        lines = self._problem_rows(
            problems, [f"wml_b_{j}" for j in range(d)], [[*map(float, b)] for b in coefficients]
        )
        score, target = column("wml_o"), column("wml_target")
        per_problem = self._per_problem(lines)
        margin = _margin(column("wml_pw"), target, score)
        weights = [
            column("wml_p"),
            *(column(step_name("z", i)) for i in range(self.numerics)),
            *level_columns(self.categoricals),
            alias(margin, "wml_h", copy=False),
            alias(exp.Mul(this=margin.copy(), expression=_minus(score, target)), "wml_r"),
            alias(
                exp.Mul(
                    this=margin.copy(),
                    expression=exp.Pow(
                        this=_minus(literal(1.0), exp.Mul(this=target, expression=score)),
                        expression=literal(2),
                    ),
                ),
                "wml_l",
                copy=False,
            ),
        ]
        h, res, lo = (column(f"wml_{p}") for p in "hrl")
        sums: list[exp.Expression] = [
            column("wml_p"),
            *(alias(c, c.name) for c in level_columns(self.categoricals)),
            *product_sums(h, "wml_h", self.numerics),
            *vector_sums(res, "wml_r", self.numerics),
            alias(exp.Sum(this=lo), sum_name("wml_l"), copy=False),
        ]
        codes = level_columns(self.categoricals)
        sets = [[], *([c] for c in codes), *itertools.combinations(codes, 2)]
        final = (
            exp.select(*sums, copy=False)
            .from_(exp.to_table(WEIGHTS), copy=False)
            .group_by(grouping_sets([[column("wml_p"), *s] for s in sets]), copy=False)
        )
        steps = [
            (DESIGN, self._design()),
            (PROBLEMS, per_problem),
            (WEIGHTS, exp.select(*weights).from_(exp.to_table(PROBLEMS), copy=False)),
        ]
        for name, step in steps:
            final = final.with_(name, as_=step, copy=False)
        return final

    def _problem_rows(
        self, problems: Sequence[int], names: Sequence[str], values: Sequence[Sequence[float]]
    ) -> exp.Values:
        """``VALUES`` of ``problems`` as ``p``: each one's index ``wml_p``, model
        ``wml_model`` and scored class ``wml_k``, then its ``values`` as ``names``."""
        return templates.values(
            [(int(r), *self.problems[r], *v) for r, v in zip(problems, values, strict=True)],
            "p",
            ["wml_p", "wml_model", "wml_k", *names],
        )

    def _per_problem(self, lines: exp.Values, *scores: exp.Expression) -> exp.Select:
        """The design's rows times the problems ``lines``: every column of both, the decision
        value ``wml_o`` at the coefficients ``wml_b_<j>``, ``scores`` (over both), each
        problem's target ``wml_target`` (1 on its class's rows, -1 elsewhere) and row weight
        ``wml_pw``."""
        weight = exp.Case(this=column("wml_model", "p"))
        for model in range(self.models):
            weight.when(literal(model), self._weight_of(model), copy=False)
        target = templates.expression(
            "svm_target", class_index=column("wml_y"), k=column("wml_k", "p")
        )
        decision = linear_form(
            self.design, [column(f"wml_b_{j}", "p") for j in range(self.design.width)]
        )
        return (
            exp.select(
                exp.Star(),
                alias(decision, "wml_o", copy=False),
                *scores,
                alias(target, "wml_target", copy=False),
                alias(weight, "wml_pw", copy=False),
                copy=False,
            )
            .from_(exp.to_table(DESIGN), copy=False)
            .join(lines, join_type="CROSS", copy=False)
        )

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
        t = candidates.shape[1]
        query = self.line_query(coefficients, directions, candidates, problems)
        rows = {row["wml_p"]: row for row in warehouse.fetch_tree(query).to_pylist()}

        def read(name: str, n: int, empty: float) -> np.ndarray:
            values = [[rows[int(r)][f"{name}_{j}"] for j in range(n)] for r in problems]
            return np.array([[empty if v is None else v for v in row] for row in values])

        return LineSums(
            read("wml_s", t, 0.0),
            read("wml_q", t, 0.0),
            read("wml_lo", t - 1, np.nan),
            read("wml_hi", t - 1, np.nan),
        )

    def line_query(
        self,
        coefficients: np.ndarray,
        directions: np.ndarray,
        candidates: np.ndarray,
        problems: Sequence[int],
    ) -> exp.Query:
        """:meth:`line`'s statement: the design's rows times the problems, each problem a row
        of ``VALUES`` (its index ``wml_p``, model, scored class, coefficients ``wml_b_<j>``,
        direction ``wml_d_<j>`` and candidates ``wml_t_<j>``), so the statement's size does
        not grow with the problems; grouped by problem. Per row and problem: its decision
        value ``o`` and ``delta`` (:func:`linear_form` of the columns), target and weight;
        its breakpoint; at each candidate the decision value ``u`` and the margin weight."""
        d, n = self.design.width, candidates.shape[1]
        names = [
            *(f"wml_b_{j}" for j in range(d)),
            *(f"wml_d_{j}" for j in range(d)),
            *(f"wml_t_{j}" for j in range(n)),
        ]
        values = [
            [*map(float, coefficients[i]), *map(float, directions[i]), *map(float, candidates[i])]
            for i in range(len(problems))
        ]
        o, delta, target = column("wml_o"), column("wml_e"), column("wml_target")
        per_problem = self._per_problem(
            self._problem_rows(problems, names, values),
            alias(linear_form(self.design, [column(f"wml_d_{j}", "p") for j in range(d)]), "wml_e"),
        )
        breakpoint_ = templates.expression(
            "svm_breakpoint", weight=column("wml_pw"), target=target, score=o, delta=delta
        )
        shifted_values, margins, sums = [], [], []
        for j in range(n):
            u, margin = column(f"wml_u_{j}"), column(f"wml_m_{j}")
            shifted = exp.Add(
                this=o.copy(), expression=exp.Mul(this=column(f"wml_t_{j}"), expression=delta)
            )
            shifted_values.append(alias(shifted, u.name, copy=False))
            margins.append(alias(_margin(column("wml_pw"), target, u), margin.name, copy=False))
            slope = exp.Mul(
                this=exp.Mul(this=margin, expression=_minus(u, target)), expression=delta.copy()
            )
            curve = exp.Mul(
                this=exp.Mul(this=margin.copy(), expression=delta.copy()), expression=delta.copy()
            )
            sums += [
                alias(exp.Sum(this=slope), f"wml_s_{j}", copy=False),
                alias(exp.Sum(this=curve), f"wml_q_{j}", copy=False),
            ]
        b = column("wml_b")
        for j in range(n - 1):
            inside = exp.and_(
                exp.GT(this=b.copy(), expression=column(f"wml_t_{j}")),
                exp.LT(this=b.copy(), expression=column(f"wml_t_{j + 1}")),
                copy=False,
            )
            within = exp.Case().when(inside, b.copy(), copy=False)
            sums += [
                alias(exp.Min(this=within), f"wml_lo_{j}", copy=False),
                alias(exp.Max(this=within.copy()), f"wml_hi_{j}", copy=False),
            ]
        return (
            exp.select(column("wml_p"), *sums, copy=False)
            .from_(exp.to_table(CANDIDATES), copy=False)
            .group_by(column("wml_p"), copy=False)
            .with_(DESIGN, as_=self._design(), copy=False)
            .with_(PROBLEMS, as_=per_problem, copy=False)
            .with_(
                BREAKS,
                as_=layer(PROBLEMS, [alias(breakpoint_, b.name, copy=False), *shifted_values]),
                copy=False,
            )
            .with_(CANDIDATES, as_=layer(BREAKS, margins), copy=False)
        )


def _margin(
    weight: exp.Expression, target: exp.Expression, score: exp.Expression
) -> exp.Expression:
    """The row's ``weight`` when ``target * score < 1`` (a margin row), else 0."""
    return templates.expression(
        "svm_margin_weight", weight=weight.copy(), target=target.copy(), score=score.copy()
    )


def _minus(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Paren(this=exp.Sub(this=a.copy(), expression=b.copy()))
