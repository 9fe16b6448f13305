"""Platt's sigmoids of a linear SVM (models/learners/linear/svm/linear_svm.py), as scikit-learn's
``CalibratedClassifierCV(LinearSVC(...), method="sigmoid", ensemble=False, cv=folds)`` fitted
with the rows' weights as ``sample_weight``.

1. The training rows are dealt to ``folds`` folds by their weights, in SQL
   (warehouse_ml/sql/models/learners/linear/svm/select_platt_folds.sql, platt_fold_weight.sql). The
   rows are ordered as an unstratified k-fold split with seed 0 ranks them (``wml.assign_folds(...,
   key=key)``: by the MD5 of their key), or in scan order without a key. A row of weight w
   (1 unweighted) covers the unit slots [S, S + w), S the exact sum of the weights before it
   in that order; slot i belongs to fold i modulo k, and the row's part in fold f is the
   measure of [S, S + w) inside fold f's slots. Unweighted, fold = rank modulo k; an integer
   weight w deals the row as w consecutive copies of it, so integer weights equal repeated
   rows (the capability WeightedFit).
2. Each fold f's SVM is fitted on every row with weight w less its part in fold f (the design
   is the whole training set's, as scikit-learn's calibration sees one standardised matrix),
   by the same finite Newton passes as the model's own SVM and in the same statements
   (models/learners/linear/svm/sums.py: one model per fold beside the model's own).
3. Each scored class's sigmoid ``p = 1 / (1 + exp(A f + B))`` of the held-out decision values
   f (each row scored by the SVM of every fold it has a part in, that decision value weighing
   the part) minimises the weighted binomial loss against Platt's smoothed targets
   ``(n+ + 1) / (n+ + 2)`` on the class's rows and ``1 / (n- + 2)`` on the others (``n+``,
   ``n-`` their summed weights), from scikit-learn's start ``(0, ln((n- + 1) / (n+ + 1)))``,
   by Newton's method: one SQL pass per step over every fold's held-out rows (a UNION ALL,
   each fold's coefficients written in as literals) for every class at once, a step that
   raises the loss halved, until the step is at most ``tol (1 + max |A, B|)``. scikit-learn
   stops its L-BFGS at a gradient of 1e-6; this is the loss's exact minimum. Where a class's
   held-out decision values are all equal (a few rows: two rows' folds each give the other 0),
   A and B are not both determined and the Hessian is singular: the steps are least-norm
   (models/learners/linear/least_norm.py), along (f, 1) from the start, where scikit-learn's L-BFGS
   goes too (with f = 0, A stays 0 and B fits the smoothed targets).

A ``class_weight`` is part of the row weights here as everywhere (stats/weights.py): it weighs
the sigmoids' rows too, where ``CalibratedClassifierCV(LinearSVC(class_weight=...))`` weighs
only the SVMs (and recomputes ``"balanced"`` on each fold's rows).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.linear.least_norm import least_norm_solve
from warehouse_ml.models.learners.linear.newton_sums import design_step, linear_score
from warehouse_ml.models.learners.linear.svm.sums import MarginPass
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.steps import balanced_sum
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats import keys
from warehouse_ml.stats.counting import WEIGHT_SUM_TYPE

MAX_HALVINGS = 40
"""Most halvings of one sigmoid step before the fit stops lowering the loss."""


def probability(value: exp.Expression, a: float, b: float) -> exp.Expression:
    """``1 / (1 + exp(a value + b))`` (platt_probability.sql)."""
    return templates.expression("platt_probability", z=_z(value, a, b))


def _z(value: exp.Expression, a: float, b: float) -> exp.Expression:
    return exp.Paren(
        this=exp.Add(
            this=exp.Mul(this=literal(float(a)), expression=value.copy()),
            expression=literal(float(b)),
        )
    )


@dataclasses.dataclass(frozen=True)
class Dealt:
    """The labelled rows of a fit dealt to the folds (step 1 of the module docstring):
    ``training`` over them, each row's span of slots in its new columns ``start`` and
    ``end``, and the number of ``folds``."""

    training: Training
    start: str
    end: str
    folds: int

    def part(self, fold: int) -> exp.Expression:
        """A row's part of its weight in fold ``fold`` (platt_fold_weight.sql)."""
        return templates.expression(
            "platt_fold_weight",
            start=column(self.start),
            end=column(self.end),
            folds=literal(self.folds),
            fold=literal(fold),
        )

    def rest(self) -> list[exp.Expression]:
        """Each fold's SVM's row weights: a row's weight less its part in the fold (exactly 0
        for a row wholly in it)."""
        return [
            balanced_sum([self.part(g) for g in range(self.folds) if g != fold])
            for fold in range(self.folds)
        ]

    def held_out(self, fold: int) -> Training:
        """Fold ``fold``'s held-out rows, each weighing its part in the fold (a new column),
        rows of no part left out."""
        source = self.training.source
        name = names.fresh("wml_fold_weight", source.columns)
        inner = exp.select(exp.Star(), alias(self.part(fold), name)).from_(source.relation.copy())
        relation = (
            exp.select(exp.Star())
            .from_(inner.subquery("wml_weighed"))
            .where(exp.GT(this=column(name), expression=literal(0)))
        )
        return dataclasses.replace(
            self.training,
            source=dataclasses.replace(source, relation=relation.subquery("wml_fold_rows")),
            weight=name,
        )


def folded(warehouse: Warehouse, training: Training, folds: int, key: str | None) -> Dealt:
    """``training``'s labelled rows dealt to ``folds`` folds (step 1 of the module
    docstring)."""
    source = training.source
    start = names.fresh("wml_fold_start", source.columns)
    end = names.fresh("wml_fold_end", [*source.columns, start])
    labelled = exp.select(exp.Star()).from_(source.relation.copy().as_("src"))
    labelled = labelled.where(
        exp.Not(this=exp.Is(this=column(training.target, "src"), expression=exp.null()))
    )
    if key is not None:
        keys.check_key(
            warehouse, source, key, "the Platt folds of the linear SVM",
            rows=labelled.subquery("wml_labelled"), target=training.target,
            features=[f.name for f in training.features],
        )  # fmt: skip
        text = templates.expression(
            "split_digest_text", seed=literal(0), repeat=literal(0), key=column("wml_key", "d")
        )
        row_key: exp.Expression = column(key, "src")
        digest = warehouse.digest(text)
        sort_keys = warehouse.digest_sort_keys(column("wml_digest", "k"))
    else:
        row_key, digest = exp.Window(this=exp.RowNumber()), column("wml_key", "d")
        sort_keys = [column("wml_digest", "k")]
    weight = (
        literal(1)
        if training.weight is None
        else exp.cast(column(training.weight, "h"), WEIGHT_SUM_TYPE.copy())
    )
    query = templates.build(
        "select_platt_folds",
        source=labelled.subquery("wml_labelled"),
        columns=[column(c, "h") for c in source.columns],
        row_key=row_key,
        digest=digest,
        sort_keys=[alias(k, f"wml_sort_{i}") for i, k in enumerate(sort_keys)],
        sort_order=[column(f"wml_sort_{i}", "h") for i in range(len(sort_keys))],
        weight=weight,
        start=start,
        end=end,
    )
    relation = dataclasses.replace(
        source,
        relation=query.subquery("wml_folded"),
        schema=source.schema.append(pa.field(start, pa.float64())).append(
            pa.field(end, pa.float64())
        ),
    )
    return Dealt(dataclasses.replace(training, source=relation), start, end, folds)


def sigmoids(
    warehouse: Warehouse,
    passes: MarginPass,
    dealt: Dealt,
    fold_coefficients: list[np.ndarray],
    max_iter: int,
    tol: float,
) -> np.ndarray:
    """Each scored class's ``(A, B)`` (module docstring) from the ``dealt`` rows, the
    design and scored classes of ``passes`` and each fold's SVM's coefficients (scored
    classes x design width)."""
    training = dealt.training
    held_out = []
    for f, coefficients in enumerate(fold_coefficients):
        step = design_step(passes.design, dealt.held_out(f))
        held_out.append(
            exp.select(
                column("wml_y"),
                column("wml_w"),
                *(
                    alias(linear_score(passes.design, b), f"wml_f_{r}")
                    for r, b in enumerate(coefficients)
                ),
            ).from_(step.subquery("wml_design"))
        )
    rows = held_out[0]
    for other in held_out[1:]:
        rows = exp.union(rows, other, distinct=False)
    totals = {c.index: float(c.n) for c in training.classes[0]}
    everyone = sum(totals.values())
    positive = np.array([totals[k] for k in passes.scored])
    negative = everyone - positive
    targets = np.column_stack([1.0 / (negative + 2.0), (positive + 1.0) / (positive + 2.0)])
    ab = np.column_stack([np.zeros(len(positive)), np.log((negative + 1.0) / (positive + 1.0))])
    return _newton(warehouse, rows, passes.scored, targets, ab, max_iter, tol)


def _newton(
    warehouse: Warehouse,
    rows: exp.Query,
    scored: list[int],
    targets: np.ndarray,
    ab: np.ndarray,
    max_iter: int,
    tol: float,
) -> np.ndarray:
    """Newton's method on each class's sigmoid loss from ``ab`` (module docstring, step 3)."""
    accepted: tuple[np.ndarray, np.ndarray] | None = None
    step = np.zeros_like(ab)
    halvings = np.zeros(len(ab), int)
    for _ in range(max_iter + MAX_HALVINGS):
        loss, gradient, hessian = _sums(warehouse, rows, scored, targets, ab)
        if accepted is not None:
            rose = (loss > accepted[0] * (1.0 + 1e-15)) & (halvings < MAX_HALVINGS)
            if rose.any():
                step[rose] /= 2.0
                halvings[rose] += 1
                ab = np.where(rose[:, None], accepted[1] + step, ab)
                continue
        accepted, halvings = (loss, ab), np.zeros(len(ab), int)
        step = -np.stack([least_norm_solve(h, g) for h, g in zip(hessian, gradient, strict=True)])
        if float(np.max(np.abs(step))) <= tol * (1.0 + float(np.max(np.abs(ab)))):
            return ab + step
        ab = ab + step
    return accepted[1] if accepted is not None else ab


def _sums(
    warehouse: Warehouse,
    rows: exp.Query,
    scored: list[int],
    targets: np.ndarray,
    ab: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each class's loss, gradient (A, B) and Hessian at ``ab``, from one pass."""
    items = []
    for r, k in enumerate(scored):
        f = column(f"wml_f_{r}")
        t = (
            exp.Case()
            .when(
                exp.EQ(this=column("wml_y"), expression=literal(k)), literal(float(targets[r, 1]))
            )
            .else_(literal(float(targets[r, 0])))
        )
        z = _z(f, *ab[r])
        p = column(f"wml_p_{r}")
        residual = exp.Mul(
            this=column("wml_w"), expression=exp.Paren(this=exp.Sub(this=p, expression=t.copy()))
        )
        curve = exp.Mul(
            this=column("wml_w"),
            expression=exp.Mul(
                this=p.copy(),
                expression=exp.Paren(this=exp.Sub(this=literal(1.0), expression=p.copy())),
            ),
        )
        items.append((z, t, f, residual, curve))
    probabilities = [
        alias(templates.expression("platt_probability", z=z), f"wml_p_{r}")
        for r, (z, *_) in enumerate(items)
    ]
    sums = []
    for r, (z, t, f, residual, curve) in enumerate(items):
        loss = exp.Mul(
            this=column("wml_w"),
            expression=exp.Paren(this=templates.expression("platt_loss", z=z.copy(), t=t.copy())),
        )
        sums += [
            alias(exp.Sum(this=loss), f"wml_loss_{r}"),
            alias(exp.Sum(this=exp.Mul(this=residual, expression=f.copy())), f"wml_ga_{r}"),
            alias(exp.Sum(this=residual.copy()), f"wml_gb_{r}"),
            alias(
                exp.Sum(
                    this=exp.Mul(this=curve, expression=exp.Mul(this=f.copy(), expression=f.copy()))
                ),
                f"wml_haa_{r}",
            ),
            alias(exp.Sum(this=exp.Mul(this=curve.copy(), expression=f.copy())), f"wml_hab_{r}"),
            alias(exp.Sum(this=curve.copy()), f"wml_hbb_{r}"),
        ]
    query = exp.select(*sums).from_(
        exp.select(exp.Star(), *probabilities).from_(rows.subquery("wml_scored")).subquery("wml_p")
    )
    (row,) = warehouse.fetch_tree(query).to_pylist()
    m = len(scored)
    loss = np.array([row[f"wml_loss_{r}"] or 0.0 for r in range(m)])
    # d loss / dA = -sum w (p - t) f, d loss / dB = -sum w (p - t): the raw prediction is -z
    gradient = -np.array([[row[f"wml_ga_{r}"] or 0.0, row[f"wml_gb_{r}"] or 0.0] for r in range(m)])
    hessian = np.array(
        [
            [[row[f"wml_haa_{r}"] or 0.0, row[f"wml_hab_{r}"] or 0.0],
             [row[f"wml_hab_{r}"] or 0.0, row[f"wml_hbb_{r}"] or 0.0]]
            for r in range(m)
        ]
    )  # fmt: skip
    return loss, gradient, hessian
