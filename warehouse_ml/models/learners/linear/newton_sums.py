"""One Newton step's sums for a softmax (multinomial, or binary logistic) model, as ONE SQL pass.

At the current coefficients ``B`` (one row per scored class, written into the query as
literals) every training row gets its class scores ``s_k = b_k . x`` (a binary model scores
class 0 as 0 and class 1 by its one coefficient vector), the max-shifted softmax ``p_k``, and
the per-row weights of the negative log-likelihood's derivatives
(warehouse_ml/sql/models/learners/linear/logistic_regression/newton_*.sql):

* gradient of the log-likelihood: ``sum_rows w (y_k - p_k) x_j`` per scored class k;
* Hessian block (k, l): ``sum_rows w p_k (delta_kl - p_l) x_i x_j`` (binary: ``w p (1 - p)``);
* the log-likelihood ``sum_rows w ln p_y`` and the smallest margin ``s_y - max_k s_k`` (0 when
  every row scores its own class highest: the classes are separated).

The design's columns are the intercept, the standardised numerics and the indicators of the
categorical levels (models/learners/shared/design.py). Indicators of one attribute exclude
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
from warehouse_ml.models.learners.shared.design import Design
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
        first = design_step(self.design, self.training)
        scores = [
            alias(linear_score(self.design, b), step_name("s", k))
            for k, b in enumerate(self.every_class(coefficients))
        ]
        joints = [column(step_name("s", k)) for k in range(self.k)]
        shifted = [
            alias(
                exp.Exp(this=exp.Sub(this=column(step_name("s", k)), expression=column("wml_max"))),
                step_name("e", k),
            )
            for k in range(self.k)
        ]
        total = column("wml_total")
        own = exp.Case(this=column("wml_y"))
        for k in range(self.k):
            own.when(literal(k), column(step_name("s", k)), copy=False)
        probabilities = [
            alias(
                exp.Div(this=column(step_name("e", k)), expression=total.copy()), step_name("p", k)
            )
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
            *(column(step_name("z", i)) for i in range(len(self.numeric))),
            *(column(step_name("c", i)) for i in range(len(self.categorical))),
            column("wml_ll"),
            column("wml_margin"),
            *(
                alias(
                    templates.expression(
                        "newton_residual", weight=column("wml_w"), class_index=column("wml_y"),
                        k=literal(k), probability=column(step_name("p", k)),
                    ),
                    step_name("r", i),
                )
                for i, k in enumerate(self.scored)
            ),
            *(
                alias(
                    templates.expression(
                        "newton_hessian_weight", weight=column("wml_w"),
                        p_k=column(step_name("p", self.scored[a])),
                        p_l=column(step_name("p", self.scored[b])),
                        delta=literal(1.0 if a == b else 0.0),
                    ),
                    step_name("h", a, b),
                )
                for a, b in self.blocks
            ),
        ]  # fmt: skip
        final = exp.select(*self._sums()).from_(exp.to_table(WEIGHTS))
        codes = level_columns(len(self.categorical))
        if codes:
            sets = [[], *([c] for c in codes), *itertools.combinations(codes, 2)]
            final = final.group_by(grouping_sets(sets), copy=False)
        steps = [
            (DESIGN, first),
            (SCORES, layer(DESIGN, scores)),
            (MAXED, layer(SCORES, [alias(greatest(joints), "wml_max")])),
            (SHIFTED, layer(MAXED, shifted)),
            (TOTALLED, layer(SHIFTED, [alias(balanced_sum(
                [column(step_name("e", k)) for k in range(self.k)]), "wml_total")])),
            (PROBABILITIES, layer(TOTALLED, probabilities)),
            (WEIGHTS, exp.select(*weights).from_(exp.to_table(PROBABILITIES))),
        ]  # fmt: skip
        for name, step in steps:
            final = final.with_(name, as_=step, copy=False)
        return final

    def _sums(self) -> list[exp.Expression]:
        """The select list: the level numbers, then per Hessian block and residual the sums
        over the numerics' products (names :func:`sum_name`), the log-likelihood, the
        margin."""
        items: list[exp.Expression] = [
            alias(column(step_name("c", i)), step_name("c", i))
            for i in range(len(self.categorical))
        ]
        for a, b in self.blocks:
            items += product_sums(
                column(step_name("h", a, b)), step_name("h", a, b), len(self.numeric)
            )
        for r in range(len(self.scored)):
            items += vector_sums(column(step_name("r", r)), step_name("r", r), len(self.numeric))
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
            cols = grouped_columns(row, level_at)
            if cols is None:
                continue
            for a, b in self.blocks:
                fill_products(hessian[a, b], row, step_name("h", a, b), cols, numeric_at)
            if len(cols) == 2:
                continue
            for r in range(m):
                fill_vector(gradient[r], row, step_name("r", r), cols, numeric_at)
            if not cols:
                log_likelihood = row["wml_sum_ll"] or 0.0
                margin = row["wml_min_margin"] if row["wml_min_margin"] is not None else 0.0
        for a, b in self.blocks:
            hessian[b, a] = hessian[a, b].T
        full = hessian.transpose(0, 2, 1, 3).reshape(m * d, m * d)
        return NewtonSums(gradient, full, float(log_likelihood), float(margin))


def design_step(
    design: Design, training: Training, weights: Sequence[exp.Expression] = ()
) -> exp.Query:
    """The first step of a pass over ``training``'s labelled rows: the standardised numerics
    ``wml_z_<i>`` and the categorical level numbers ``wml_c_<i>`` of ``design`` (numerics,
    then categoricals, each in feature order), the class index ``wml_y`` (classes_ order),
    the weight ``wml_w`` (DOUBLE, 1 unweighted) and each further row weight of ``weights``
    (expressions over the source row) as ``wml_w_<m>``, m from 1 (DOUBLE)."""
    source = training.source
    label = expressions.as_text(column(training.target, "s"))
    klass = exp.Case(this=label)
    for index, c in enumerate(training.classes[0]):
        klass.when(literal(c.label), literal(index), copy=False)
    weight = (
        literal(1.0)
        if training.weight is None
        else expressions.as_double(column(training.weight, "s"))
    )
    values = dict(zip((f.name for f in design.features), design.values(source), strict=True))
    numeric = [f.name for f in design.features if f.kind == NUMERIC]
    categorical = [f.name for f in design.features if f.kind != NUMERIC]
    return templates.build(
        "select_newton_design",
        source=source.relation,
        target=training.target,
        design_columns=[
            *(alias(values[a], step_name("z", i)) for i, a in enumerate(numeric)),
            *(alias(values[a], step_name("c", i)) for i, a in enumerate(categorical)),
            alias(klass, "wml_y"),
            alias(weight, "wml_w"),
            *(alias(expressions.as_double(w), step_name("w", m)) for m, w in enumerate(weights, 1)),
        ],
    )


def linear_score(design: Design, b: np.ndarray) -> exp.Expression:
    """The linear score ``b . x`` of coefficients ``b`` (design width, the intercept first)
    over the columns of :func:`design_step`, each coefficient a literal."""
    return linear_form(design, [literal(float(x)) for x in b])


def linear_form(design: Design, b: Sequence[exp.Expression]) -> exp.Expression:
    """:func:`linear_score` with each coefficient an expression (a literal, or a column
    holding it): the same terms in the same order."""
    numeric = [f.name for f in design.features if f.kind == NUMERIC]
    categorical = [f.name for f in design.features if f.kind != NUMERIC]
    items: list[exp.Expression] = [b[0].copy()]
    for i, attribute in enumerate(numeric):
        (j,) = design.indices(attribute)
        items.append(exp.Mul(this=b[j].copy(), expression=column(step_name("z", i))))
    for i, attribute in enumerate(categorical):
        indices = design.indices(attribute)
        if indices:
            case = exp.Case(this=column(step_name("c", i)))
            for level, j in enumerate(indices):
                case.when(literal(level), b[j].copy(), copy=False)
            items.append(case.else_(literal(0.0), copy=False))
    return balanced_sum(items)


def level_columns(categorical: int) -> list[exp.Column]:
    """The design step's level numbers ``wml_c_<i>`` of its ``categorical`` attributes."""
    return [column(step_name("c", i)) for i in range(categorical)]


def product_sums(weight: exp.Expression | None, name: str, numerics: int) -> list[exp.Expression]:
    """The sums of a per-row ``weight`` (None: 1) alone, times each standardised numeric
    ``wml_z_<i>`` and times each pair ``i <= j`` of them, aliased by :func:`sum_name` of
    ``name``: over a grouping set's rows, the entries of the weighted cross-product matrix of
    the design that :func:`fill_products` reads back."""
    z = [column(step_name("z", i)) for i in range(numerics)]
    one: exp.Expression = exp.Count(this=exp.Star()) if weight is None else exp.Sum(this=weight)
    items = [alias(one, sum_name(name))]
    for i, zi in enumerate(z):
        weighted = zi.copy() if weight is None else exp.Mul(this=weight.copy(), expression=zi)
        items.append(alias(exp.Sum(this=weighted), sum_name(name, i)))
        for j in range(i, numerics):
            product = exp.Mul(this=weighted.copy(), expression=z[j].copy())
            items.append(alias(exp.Sum(this=product), sum_name(name, i, j)))
    return items


def vector_sums(weight: exp.Expression, name: str, numerics: int) -> list[exp.Expression]:
    """The sums of a per-row ``weight`` alone and times each standardised numeric
    ``wml_z_<i>``, aliased by :func:`sum_name` of ``name``: over a grouping set's rows, the
    entries of the weighted sum of the design rows that :func:`fill_vector` reads back."""
    items = [alias(exp.Sum(this=weight.copy()), sum_name(name))]
    for i in range(numerics):
        weighted = exp.Mul(this=weight.copy(), expression=column(step_name("z", i)))
        items.append(alias(exp.Sum(this=weighted), sum_name(name, i)))
    return items


def fill_vector(
    vector: np.ndarray, row: dict, name: str, cols: Sequence[int], numeric_at: Sequence[int]
) -> None:
    """Write into ``vector`` (design width, 0 the intercept) the entries of
    :func:`vector_sums` ``name`` that a grouping-set row of one indicator or none holds: the
    indicator's, or the intercept's and the numerics'."""
    vector[cols[0] if cols else 0] = row[sum_name(name)] or 0.0
    if not cols:
        for i, zi in enumerate(numeric_at):
            vector[zi] = row[sum_name(name, i)] or 0.0


def grouped_columns(row: dict, level_at: Sequence[Sequence[int]]) -> list[int] | None:
    """The design columns (indicators) of the categorical level numbers a grouping-set row
    is grouped by (``wml_c_<i>`` not NULL); None when one is -1 (no indicator: the row's
    sums belong to no entry)."""
    grouped = [
        (i, row[step_name("c", i)])
        for i in range(len(level_at))
        if row[step_name("c", i)] is not None
    ]
    if any(level < 0 for _, level in grouped):
        return None
    return [level_at[i][level] for i, level in grouped]


def fill_products(
    matrix: np.ndarray, row: dict, name: str, cols: Sequence[int], numeric_at: Sequence[int]
) -> None:
    """Write into ``matrix`` (design width square, symmetric, column 0 the intercept) the
    entries of :func:`product_sums` ``name`` that one grouping-set row holds: a pair of
    indicators ``cols``; one indicator with the intercept, itself and the numerics; or, with
    no indicator, the intercept and the numerics' products (module docstring)."""
    s = row[sum_name(name)] or 0.0
    if len(cols) == 2:
        matrix[cols[0], cols[1]] = matrix[cols[1], cols[0]] = s
        return
    at = cols[0] if cols else 0
    matrix[at, 0] = matrix[0, at] = matrix[at, at] = s
    for i, zi in enumerate(numeric_at):
        matrix[at, zi] = matrix[zi, at] = row[sum_name(name, i)] or 0.0
        if not cols:
            for j in range(i, len(numeric_at)):
                zj = numeric_at[j]
                matrix[zi, zj] = matrix[zj, zi] = row[sum_name(name, i, j)] or 0.0


def step_name(prefix: str, *indices: int) -> str:
    """A column of the pass's steps: ``wml_<prefix>_<index>...``."""
    return "_".join([f"wml_{prefix}", *(str(i) for i in indices)])


def sum_name(weight: str, *numerics: int) -> str:
    """The sum of ``weight`` times the numerics ``numerics`` (none, one or a pair)."""
    return "_".join([weight.replace("wml_", "wml_sum_"), *(f"z{i}" for i in numerics)])


def grouping_sets(sets: Iterable[Sequence[exp.Expression]]) -> exp.GroupingSets:
    """``GROUPING SETS ((...), ...)`` of the given column lists."""
    return exp.GroupingSets(
        expressions=[exp.Tuple(expressions=[c.copy() for c in columns]) for columns in sets]
    )
