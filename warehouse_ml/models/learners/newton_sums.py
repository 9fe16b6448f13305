"""One Newton step's sums for a softmax (multinomial, or binary logistic) model, as ONE SQL pass.

At the current coefficients ``B`` (one row per scored class, written into the query as
literals) every training row gets its class scores ``s_k = b_k . x`` (a binary model scores
class 0 as 0 and class 1 by its one coefficient vector), the max-shifted softmax ``p_k``, and
the per-row weights of the negative log-likelihood's derivatives
(sql/models/learners/logistic_regression/newton_*.sql):

* gradient of the log-likelihood: ``sum_rows w (y_k - p_k) x_j`` per scored class k;
* Hessian block (k, l): ``sum_rows w p_k (delta_kl - p_l) x_i x_j`` (binary: ``w p (1 - p)``);
* the log-likelihood ``sum_rows w ln p_y`` and the smallest margin ``s_y - max_k s_k`` (0 when
  every row scores its own class highest: the classes are separated).

The design's columns are the intercept, the standardised numerics and the indicators of the
categorical levels (models/learners/linear_design.py). Indicators of one attribute exclude
each other, so the sums that involve them are sums over groups of levels: the statement
groups by ``GROUPING SETS`` of the categorical attributes' level numbers, ``()``, each
``(a)`` and each pair ``(a, b)``. A row of set ``(a, b)`` with levels (u, v) holds the Hessian
entry of indicators ``a=u`` and ``b=v``, a row of set ``(a)`` those of ``a=u`` with the
intercept and the numerics, the row of ``()`` those of the intercept and the numerics. (The
same sets split into a UNION ALL of the single and the pair sets, the pairs with their sums of
weights alone, took DuckDB ten times longer.)
A NULL level number marks an attribute outside the row's set; a NULL or unseen value has
level number -1 (no indicator). The sums are DOUBLE, in the engine's order: the solver's
result agrees to far below 1e-12 across runs and thread counts (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.linear_design import Design
from warehouse_ml.models.scoring.steps import balanced_sum, greatest, layer
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import NUMERIC

DESIGN, SCORES, MAXED, SHIFTED, TOTALLED, PROBABILITIES, WEIGHTS = (
    "wml_design", "wml_scores", "wml_maxed", "wml_shifted", "wml_totalled", "wml_probabilities",
    "wml_weights",
)  # fmt: skip


@dataclass(frozen=True)
class NewtonSums:
    """The sums of one pass at coefficients B (``m`` scored classes x ``d`` columns):
    ``gradient`` (m x d, of the log-likelihood), ``hessian`` (m d x m d, of the negative
    log-likelihood, class-major), ``log_likelihood`` and ``margin`` (module docstring)."""

    gradient: np.ndarray
    hessian: np.ndarray
    log_likelihood: float
    margin: float


class NewtonPass:
    """The pass of a model with design ``design`` over ``training``'s rows, ``n_classes``
    classes (2: one scored class; more: every class scored)."""

    def __init__(self, design: Design, training: Training, n_classes: int) -> None:
        self.design = design
        self.training = training
        self.k = n_classes
        self.scored = [1] if n_classes == 2 else list(range(n_classes))
        self.numeric = [f.name for f in design.features if f.kind == NUMERIC]
        self.categorical = [f.name for f in design.features if f.kind != NUMERIC]

    @property
    def blocks(self) -> list[tuple[int, int]]:
        """The Hessian blocks summed, (k, l) pairs of scored positions with k <= l."""
        m = len(self.scored)
        return [(a, b) for a in range(m) for b in range(a, m)]

    def every_class(self, coefficients: np.ndarray) -> np.ndarray:
        """Every class's coefficients from the scored classes' (a binary model's class 0: 0)."""
        full = np.zeros((self.k, coefficients.shape[1]))
        full[self.scored] = coefficients
        return full

    def run(self, warehouse: Warehouse, coefficients: np.ndarray) -> NewtonSums:
        """The sums at ``coefficients`` (one row per scored class)."""
        table = warehouse.fetch_tree(self.query(coefficients)).to_pylist()
        return self._assemble(table)

    def query(self, coefficients: np.ndarray) -> exp.Query:
        """The pass's statement (module docstring) at ``coefficients``."""
        training, design = self.training, self.design
        source = training.source
        target = column(training.target, "s")
        label = expressions.as_text(target)
        klass = exp.Case(this=label)
        for index, c in enumerate(training.classes[0]):
            klass.when(literal(c.label), literal(index), copy=False)
        weight = (
            literal(1.0)
            if training.weight is None
            else expressions.as_double(column(training.weight, "s"))
        )
        values = dict(zip((f.name for f in design.features), design.values(source), strict=True))
        first = templates.build(
            "select_newton_design",
            source=source.relation,
            target=training.target,
            design_columns=[
                *(alias(values[a], _name("z", i)) for i, a in enumerate(self.numeric)),
                *(alias(values[a], _name("c", i)) for i, a in enumerate(self.categorical)),
                alias(klass, "wml_y"),
                alias(weight, "wml_w"),
            ],
        )
        scores = [
            alias(self._score(b), _name("s", k))
            for k, b in enumerate(self.every_class(coefficients))
        ]
        joints = [column(_name("s", k)) for k in range(self.k)]
        shifted = [
            alias(
                exp.Exp(this=exp.Sub(this=column(_name("s", k)), expression=column("wml_max"))),
                _name("e", k),
            )
            for k in range(self.k)
        ]
        total = column("wml_total")
        own = exp.Case(this=column("wml_y"))
        for k in range(self.k):
            own.when(literal(k), column(_name("s", k)), copy=False)
        probabilities = [
            alias(exp.Div(this=column(_name("e", k)), expression=total.copy()), _name("p", k))
            for k in range(self.k)
        ]
        probabilities += [
            alias(
                templates.expression(
                    "newton_log_likelihood", weight=column("wml_w"), score=own,
                    max=column("wml_max"), total=total,
                ),
                "wml_ll",
            ),
            alias(exp.Sub(this=own.copy(), expression=column("wml_max")), "wml_margin"),
        ]  # fmt: skip
        weights = [
            *(column(_name("z", i)) for i in range(len(self.numeric))),
            *(column(_name("c", i)) for i in range(len(self.categorical))),
            column("wml_ll"),
            column("wml_margin"),
            *(
                alias(
                    templates.expression(
                        "newton_residual", weight=column("wml_w"), class_index=column("wml_y"),
                        k=literal(k), probability=column(_name("p", k)),
                    ),
                    _name("r", i),
                )
                for i, k in enumerate(self.scored)
            ),
            *(
                alias(
                    templates.expression(
                        "newton_hessian_weight", weight=column("wml_w"),
                        p_k=column(_name("p", self.scored[a])),
                        p_l=column(_name("p", self.scored[b])),
                        delta=literal(1.0 if a == b else 0.0),
                    ),
                    _name("h", a, b),
                )
                for a, b in self.blocks
            ),
        ]  # fmt: skip
        final = exp.select(*self._sums()).from_(exp.to_table(WEIGHTS))
        codes = [column(_name("c", i)) for i in range(len(self.categorical))]
        if codes:
            sets = [[], *([c] for c in codes), *itertools.combinations(codes, 2)]
            final = final.group_by(_grouping_sets(sets), copy=False)
        steps = [
            (DESIGN, first),
            (SCORES, layer(DESIGN, scores)),
            (MAXED, layer(SCORES, [alias(greatest(joints), "wml_max")])),
            (SHIFTED, layer(MAXED, shifted)),
            (TOTALLED, layer(SHIFTED, [alias(balanced_sum(
                [column(_name("e", k)) for k in range(self.k)]), "wml_total")])),
            (PROBABILITIES, layer(TOTALLED, probabilities)),
            (WEIGHTS, exp.select(*weights).from_(exp.to_table(PROBABILITIES))),
        ]  # fmt: skip
        for name, step in steps:
            final = final.with_(name, as_=step, copy=False)
        return final

    def _score(self, b: np.ndarray) -> exp.Expression:
        """One class's linear score over the design step's columns."""
        items: list[exp.Expression] = [literal(float(b[0]))]
        for i, attribute in enumerate(self.numeric):
            (j,) = self.design.indices(attribute)
            items.append(exp.Mul(this=literal(float(b[j])), expression=column(_name("z", i))))
        for i, attribute in enumerate(self.categorical):
            indices = self.design.indices(attribute)
            if indices:
                case = exp.Case(this=column(_name("c", i)))
                for level, j in enumerate(indices):
                    case.when(literal(level), literal(float(b[j])), copy=False)
                items.append(case.else_(literal(0.0), copy=False))
        return balanced_sum(items)

    def _sums(self) -> list[exp.Expression]:
        """The select list: the level numbers, then per Hessian block and residual the sums
        over the numerics' products (names :func:`_sum_name`), the log-likelihood, the
        margin."""
        items: list[exp.Expression] = [
            alias(column(_name("c", i)), _name("c", i)) for i in range(len(self.categorical))
        ]
        z = [column(_name("z", i)) for i in range(len(self.numeric))]
        for a, b in self.blocks:
            h = column(_name("h", a, b))
            items.append(alias(exp.Sum(this=h), _sum_name(_name("h", a, b))))
            for i, zi in enumerate(z):
                weighted = exp.Mul(this=h.copy(), expression=zi.copy())
                items.append(alias(exp.Sum(this=weighted), _sum_name(_name("h", a, b), i)))
                for j in range(i, len(z)):
                    product = exp.Mul(this=weighted.copy(), expression=z[j].copy())
                    items.append(alias(exp.Sum(this=product), _sum_name(_name("h", a, b), i, j)))
        for r in range(len(self.scored)):
            items.append(alias(exp.Sum(this=column(_name("r", r))), _sum_name(_name("r", r))))
            for i, zi in enumerate(z):
                weighted = exp.Mul(this=column(_name("r", r)), expression=zi.copy())
                items.append(alias(exp.Sum(this=weighted), _sum_name(_name("r", r), i)))
        items.append(alias(exp.Sum(this=column("wml_ll")), "wml_sum_ll"))
        items.append(alias(exp.Min(this=column("wml_margin")), "wml_min_margin"))
        return items

    def _assemble(self, rows: list[dict]) -> NewtonSums:
        """The gradient and Hessian from the pass's rows (module docstring)."""
        d, m = self.design.width, len(self.scored)
        numeric_at = [self.design.indices(a)[0] for a in self.numeric]
        level_at = [self.design.indices(a) for a in self.categorical]
        gradient = np.zeros((m, d))
        hessian = np.zeros((m, m, d, d))
        log_likelihood, margin = 0.0, 0.0
        for row in rows:
            grouped = [
                (i, row[_name("c", i)])
                for i in range(len(self.categorical))
                if row[_name("c", i)] is not None
            ]
            if any(level < 0 for _, level in grouped):
                continue
            cols = [level_at[i][level] for i, level in grouped]
            for a, b in self.blocks:
                h = hessian[a, b]
                s = row[_sum_name(_name("h", a, b))] or 0.0
                if len(cols) == 2:
                    h[cols[0], cols[1]] = h[cols[1], cols[0]] = s
                    continue
                at = cols[0] if cols else 0
                h[at, 0] = h[0, at] = h[at, at] = s
                for i, zi in enumerate(numeric_at):
                    h[at, zi] = h[zi, at] = row[_sum_name(_name("h", a, b), i)] or 0.0
                    if not cols:
                        for j in range(i, len(numeric_at)):
                            zj = numeric_at[j]
                            h[zi, zj] = h[zj, zi] = row[_sum_name(_name("h", a, b), i, j)] or 0.0
            if len(cols) == 2:
                continue
            at = cols[0] if cols else 0
            for r in range(m):
                gradient[r, at] = row[_sum_name(_name("r", r))] or 0.0
                if not cols:
                    for i, zi in enumerate(numeric_at):
                        gradient[r, zi] = row[_sum_name(_name("r", r), i)] or 0.0
            if not cols:
                log_likelihood = row["wml_sum_ll"] or 0.0
                margin = row["wml_min_margin"] if row["wml_min_margin"] is not None else 0.0
        for a, b in self.blocks:
            hessian[b, a] = hessian[a, b].T
        full = hessian.transpose(0, 2, 1, 3).reshape(m * d, m * d)
        return NewtonSums(gradient, full, float(log_likelihood), float(margin))


def _name(prefix: str, *indices: int) -> str:
    """A column of the pass's steps: ``wml_<prefix>_<index>...``."""
    return "_".join([f"wml_{prefix}", *(str(i) for i in indices)])


def _sum_name(weight: str, *numerics: int) -> str:
    """The sum of ``weight`` times the numerics ``numerics`` (none, one or a pair)."""
    return "_".join([weight.replace("wml_", "wml_sum_"), *(f"z{i}" for i in numerics)])


def _grouping_sets(sets: Iterable[Sequence[exp.Expression]]) -> exp.GroupingSets:
    """``GROUPING SETS ((...), ...)`` of the given column lists."""
    return exp.GroupingSets(
        expressions=[exp.Tuple(expressions=[c.copy() for c in columns]) for columns in sets]
    )
