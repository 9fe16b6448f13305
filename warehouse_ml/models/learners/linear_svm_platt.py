"""Platt's sigmoids of a linear SVM (models/learners/linear_svm.py), as scikit-learn's
``CalibratedClassifierCV(LinearSVC(...), method="sigmoid", ensemble=False, cv=folds)``.

1. The training rows are dealt to ``folds`` folds as an unstratified k-fold split with seed 0
   deals them (``wml.assign_folds(..., folds=k, key=key)``: the rows ranked by the MD5 of
   their key, fold = rank modulo k; without a key, the rows' scan order numbers them), in SQL
   (sql/models/learners/linear_svm/select_platt_folds.sql).
2. Each fold's SVM is fitted on the other folds' rows (the design is the whole training
   set's, as scikit-learn's calibration sees one standardised matrix), by the same finite
   Newton passes.
3. Each scored class's sigmoid ``p = 1 / (1 + exp(A f + B))`` of the held-out decision values
   f (every row scored by its own fold's SVM) minimises the weighted binomial loss against
   Platt's smoothed targets ``(n+ + 1) / (n+ + 2)`` on the class's rows and ``1 / (n- + 2)``
   on the others (``n+``, ``n-`` their rows or summed weights), from scikit-learn's start
   ``(0, ln((n- + 1) / (n+ + 1)))``, by Newton's method: one SQL pass per step over every
   fold's held-out rows (a UNION ALL, each fold's coefficients written in as literals) for
   every class at once, a step that raises the loss halved, until the step is at most
   ``tol (1 + max |A, B|)``. scikit-learn stops its L-BFGS at a gradient of 1e-6; this is the
   loss's exact minimum.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ColumnError
from warehouse_ml.models.learners.linear_svm_newton import solve
from warehouse_ml.models.learners.linear_svm_sums import MarginPass
from warehouse_ml.models.learners.newton_sums import design_step, linear_score
from warehouse_ml.models.scoring import names
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal

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


def folded(warehouse: Warehouse, training: Training, folds: int, key: str | None) -> Training:
    """``training`` over its labelled rows with each row's fold in a new column (step 1 of the
    module docstring; the column's name is ``Training.held_out``)."""
    source = training.source
    fold = names.fresh("wml_fold", source.columns)
    labelled = exp.select(exp.Star()).from_(source.relation.copy().as_("src"))
    labelled = labelled.where(
        exp.Not(this=exp.Is(this=column(training.target, "src"), expression=exp.null()))
    )
    if key is not None:
        _check_key(warehouse, source, labelled, key)
    row_key = column(key, "src") if key is not None else exp.Window(this=exp.RowNumber())
    text = templates.expression(
        "split_digest_text", seed=literal(0), repeat=literal(0), key=column("wml_key", "d")
    )
    sort_keys = warehouse.digest_sort_keys(column("wml_digest", "k"))
    query = templates.build(
        "select_platt_folds",
        source=labelled.subquery("wml_labelled"),
        columns=[column(c, "h") for c in source.columns],
        row_key=row_key,
        digest=warehouse.digest(text),
        sort_keys=[alias(k, f"wml_sort_{i}") for i, k in enumerate(sort_keys)],
        sort_order=[column(f"wml_sort_{i}", "h") for i in range(len(sort_keys))],
        folds=literal(folds),
        fold=fold,
    )
    relation = dataclasses.replace(
        source,
        relation=query.subquery("wml_folded"),
        schema=source.schema.append(pa.field(fold, pa.int32())),
    )
    return dataclasses.replace(training, source=relation, held_out=fold)


def _check_key(warehouse: Warehouse, source: Source, labelled: exp.Query, key: str) -> None:
    """``key`` is an integer or string column of ``source``, non-NULL and unique on the
    ``labelled`` rows; a ColumnError naming it otherwise."""
    kind = source.field(key).type
    if not (
        pa.types.is_integer(kind) or pa.types.is_string(kind) or pa.types.is_large_string(kind)
    ):
        raise ColumnError(
            f"key column {key!r} of {source.description} has type {kind}; expected an integer "
            "or string key (the calibration folds hash CAST(key AS VARCHAR))"
        )
    row = warehouse.fetch(
        "select_key_profile", source=labelled.subquery("wml_labelled"), key_value=column(key, "src")
    ).to_pylist()[0]
    if row["n_keys"] != row["n_rows"] or row["n_distinct"] != row["n_rows"]:
        raise ColumnError(
            f"key column {key!r} of {source.description} has {row['n_rows'] - row['n_keys']} "
            f"NULL and {row['n_keys'] - row['n_distinct']} repeated values among "
            f"{row['n_rows']} labelled rows; expected one non-NULL key per row"
        )


def _subset(training: Training, fold: int, held_out: bool) -> Training:
    """``training``'s rows of fold ``fold`` (``held_out``) or of the other folds."""
    source = training.source
    test = exp.EQ if held_out else exp.NEQ
    relation = (
        exp.select(exp.Star())
        .from_(source.relation.copy())
        .where(test(this=column(training.held_out), expression=literal(fold)))
    )
    return dataclasses.replace(
        training, source=dataclasses.replace(source, relation=relation.subquery("wml_fold_rows"))
    )


def sigmoids(
    warehouse: Warehouse,
    passes: MarginPass,
    training: Training,
    folds: int,
    C: float,
    max_iter: int,
    tol: float,
) -> np.ndarray:
    """Each scored class's ``(A, B)`` (module docstring) from the rows of :func:`folded`
    ``training`` (``folds`` folds) and the whole set's ``passes``."""
    n_classes = len(training.classes[0])
    held_out = []
    for f in range(folds):
        fit = MarginPass(passes.design, _subset(training, f, held_out=False), n_classes)
        w = solve(warehouse, fit, C, max_iter, tol).coefficients
        step = design_step(passes.design, _subset(training, f, held_out=True))
        held_out.append(
            exp.select(
                column("wml_y"),
                column("wml_w"),
                *(alias(linear_score(passes.design, b), f"wml_f_{r}") for r, b in enumerate(w)),
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
        step = -np.stack([np.linalg.solve(h, g) for h, g in zip(hessian, gradient, strict=True)])
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
            expression=templates.expression("platt_loss", z=z.copy(), t=t.copy()),
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
