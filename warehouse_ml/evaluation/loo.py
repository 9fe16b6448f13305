"""Exact leave-one-out cross-validation of Naive Bayes: one fit, one scoring query.

Naive Bayes parameters are counts, so the model a row would get if it were left out is the
full-data model with that row's own counts taken away. :func:`cross_validate_leave_one_out`
counts once (as ``fit`` does), then scores every row, in ONE query, with the per-row closed
form. For class c and a row of class y, ``own = 1`` if c == y else 0:

* prior: (N_c - own + prior_alpha) / (N - 1 + prior_alpha K) (K stays the number of classes of
  the full data, as in k-fold cross-validation; a class whose only row is left out has prior 0
  when prior_alpha = 0: impossible);
* categorical attribute with the row's value x: n'_xc = n_xc - own and n'_c = n_c - own (n_c =
  the class's non-NULL count of the attribute) in the usual smoothing
  (n' + alpha + m/|X|) / (n'_c + alpha |X| + m)
  (``warehouse_ml/sql/models/learners/bayes/naive_bayes/smoothed_log_prob.sql``, shared with the
  fit); a value seen only in this row is unseen in its fold: it contributes the unseen term
  (``warehouse_ml/sql/models/learners/bayes/naive_bayes/unseen_log_prob.sql``) with |X| - 1 values
  and n'_c, for every class (nothing when no value of the attribute is left); NULL values contribute
  nothing; a zero probability (alpha = m = 0) makes the class impossible, a zero denominator gives
  -ln|X|, exactly as the fitted model's tables and scoring do. Both cases a row can be in (of class
  c or not) are computed once per (attribute, value, class) in a small table
  (``warehouse_ml/sql/evaluation/crossval/create_loo_categorical.sql``), so scoring a row is one
  join per attribute, as in ordinary scoring;
* numeric attribute: the class's mean and population variance without the row,
  mean' = (n mean - x) / (n - 1), M2' = M2 - (x - mean)(x - mean'); for the one row of its
  class holding the class's extreme value (the farthest from the mean), whose removal this
  downdate cannot follow when that value dominates (one 1e25 among values near 1 cancels every
  significant digit), the exact moments of the class's other values, from one more pass of
  exact sums over the rows without each class's extreme value (moments.without_extremes);
  plus the variance floor epsilon = var_smoothing * (largest overall variance) **of the full
  data**. That is the one approximation: the floor of a fold would use the overall variance
  without the row, which shifts variances by about var_smoothing * var / N (1e-9 * var / N by
  default); with var_smoothing = 0 the result is exact. A class left with no non-NULL value
  contributes nothing.

Rows with a NULL target are neither counted nor scored. The predictions table has the columns of
:func:`warehouse_ml.evaluation.crossval.cross_validate`: key, ``fold``, target, ``p_<label>`` per
class, ``prediction``. Each row is its own fold: ``fold`` is the row's 0-based ordinal among ALL
source rows (NULL-target rows included, so ids have gaps there), in key order when a key is given,
else in the engine's scan order; without a key the key column is ``wml_row`` = fold + 1 (scan-order
numbering is stable for DuckDB tables and Arrow data, not promised by SQL: give a key for results
that must agree across engines). ``Evaluation.folds`` is the number of scored rows and
``Evaluation.split`` is None: no fold assignment table is written (no MD5 pass, no copy).

Only Naive Bayes has this closed form (it declares
:class:`~warehouse_ml.models.capabilities.ExactLeaveOneOut`): other kinds (TAN, whose tree would
change per fold) raise :class:`~warehouse_ml.errors.NotSupportedError`; use k-fold
``cross_validate`` for them.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation import splits
from warehouse_ml.evaluation.result import PREDICTIONS, UNWRITTEN, Evaluation, settings
from warehouse_ml.models import capabilities
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import ExactLeaveOneOut
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.names import FOLD, PREDICTION
from warehouse_ml.models.scoring.query import score_query
from warehouse_ml.models.scoring.relations import Join, partition_condition, pivot_columns
from warehouse_ml.models.scoring.scores import AdditiveTerms, Term
from warehouse_ml.models.training import ClassCount, class_counts, total
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import TableName, alias, column, literal
from warehouse_ml.stats import counting
from warehouse_ml.stats.features import (
    CATEGORICAL,
    NUMERIC,
    Feature,
    value_expression,
    valued_source,
)
from warehouse_ml.stats.integer_rule import choose_features
from warehouse_ml.stats.moments import numeric_moments, without_extremes
from warehouse_ml.store import catalog, ownership
from warehouse_ml.store.ownership import Staging


def _paren(expression: exp.Expression) -> exp.Expression:
    return exp.Paren(this=expression)


def _minus(left: exp.Expression, right: exp.Expression) -> exp.Expression:
    return _paren(exp.Sub(this=left.copy(), expression=right.copy()))


def _pivot(table: TableName, attribute: str | None, items: list[exp.Expression]) -> exp.Query:
    """One row of per-class columns of ``table`` (of one attribute, or all rows)."""
    condition = (
        exp.true()
        if attribute is None
        else exp.EQ(this=column("attribute", "p"), expression=literal(attribute))
    )
    return templates.build("pivot_by_class", table=table, condition=condition, class_columns=items)


def _one_row_join(pivot: exp.Query, name: str) -> Join:
    """A one-row pivot of the full-data model (partition 0), LEFT JOINed so that it never
    removes a scored row."""
    return Join(pivot, name, on=partition_condition(name, None))


def scored_rows(
    source: exp.Expression,
    target: str,
    classes: list[ClassCount],
    key: str | None,
    internal: dict[str, str],
) -> exp.Query:
    """The rows leave-one-out scores (non-NULL target): the source's columns and, under the
    names of ``internal`` (fresh with respect to them, see :func:`_internal_names`): ``row``
    (1-based ordinal among all source rows, in key order or else scan order), ``fold``
    (= row - 1) and ``own_<i>`` per class (is the row of class i, 0 or 1)."""
    order = exp.Order(expressions=[exp.Ordered(this=column(key, "src"))]) if key else None
    ordinal = exp.Window(this=exp.RowNumber(), order=order)
    label = expressions.as_text(column(target, "src"))
    own = [
        alias(
            templates.expression("loo_own", label=label, class_label=c.label),
            internal[f"own_{i}"],
        )
        for i, c in enumerate(classes)
    ]
    return templates.build(
        "select_loo_rows", source=source, target=target, ordinal=ordinal, own_columns=own,
        row=internal["row"], fold=internal["fold"],
    )  # fmt: skip


def _internal_names(columns: Sequence[str], n_classes: int) -> dict[str, str]:
    """The names leave-one-out adds to the source's rows, none equal to a source column."""
    taken = list(columns)
    chosen: dict[str, str] = {}
    for name in ["row", "fold", *(f"own_{i}" for i in range(n_classes))]:
        chosen[name] = names.fresh(f"wml_{name}", taken)
        taken.append(chosen[name])
    return chosen


def own_columns(internal: dict[str, str], n_classes: int) -> list[exp.Expression]:
    """References to the scored row's (alias ``s``) per-class 0/1 columns."""
    return [column(internal[f"own_{i}"], "s") for i in range(n_classes)]


def prior_term(
    classes_table: TableName, own: list[exp.Expression], n_total: int, prior_alpha: float
) -> Term:
    """log P(c) of the fold without the row: (N_c - own + prior_alpha) / (N - 1 + prior_alpha K)."""
    k = len(own)
    name = "wml_loo_prior"
    join = _one_row_join(_pivot(classes_table, None, pivot_columns("n", k, "n")), name)
    per_class = [
        templates.expression(
            "log_prior",
            n=_minus(column(f"n_{c}", name), own[c]),
            n_total=n_total - 1,
            prior_alpha=prior_alpha,
            n_classes=k,
        )
        for c in range(k)
    ]
    return Term(per_class, [join])


def create_categorical_table(
    warehouse: Warehouse,
    model: ExactLeaveOneOut,
    table: TableName,
    categorical_table: TableName,
    unseen_table: TableName,
) -> None:
    """Write the leave-one-out categorical parameters
    (``warehouse_ml/sql/evaluation/crossval/create_loo_categorical.sql``): per (attribute, value,
    class) the log-probability with the row left out, for a row of another class and for a row of
    this class, from the full-data model's tables."""
    k, u = "k", "u"
    smoothing = {"alpha": model.alpha, "m": model.m}
    fewer_values = _minus(column("n_values", u), literal(1))
    n_class_without = _minus(column("n_class", u), literal(1))
    warehouse.run(
        "create_loo_categorical",
        table=table,
        categorical=categorical_table,
        unseen=unseen_table,
        unseen_other=templates.expression(
            "unseen_log_prob", n_class=column("n_class", u), n_values=fewer_values, **smoothing
        ),
        seen_own=templates.expression(
            "smoothed_log_prob",
            n=_minus(column("n", k), literal(1)),
            n_class=n_class_without,
            n_values=column("n_values", u),
            **smoothing,
        ),
        unseen_own=templates.expression(
            "unseen_log_prob", n_class=n_class_without, n_values=fewer_values, **smoothing
        ),
    )


def categorical_term(
    loo_table: TableName, feature: Feature, name: str, own: list[exp.Expression]
) -> Term:
    """Leave-one-out log P(value | c) of one categorical attribute: one join of the value's
    row of ``create_categorical_table``'s output, pivoted by class (the ``lpo_<c>`` columns
    for a row of another class, ``lpw_<c>`` for a row of class c)."""
    k = len(own)
    attribute = feature.name
    value = value_expression(feature, column(attribute, "s"))
    text = expressions.as_text(value)
    join = Join(
        templates.build(
            "pivot_rows_by_class",
            table=loo_table,
            key_columns=[alias(column("value", "p"), "value")],
            key_group=[column("value", "p")],
            attribute=attribute,
            class_columns=[
                *pivot_columns("log_prob_other", k, "lpo"),
                *pivot_columns("log_prob_own", k, "lpw"),
            ],
        ),
        name,
        on=expressions.equals(column("value", name), text),
    )
    per_class = [
        templates.expression(
            "loo_term_categorical",
            value=value,
            own=own[c],
            other=column(f"lpo_{c}", name),
            own_log_prob=column(f"lpw_{c}", name),
        )
        for c in range(k)
    ]
    return Term(per_class, [join])


def gaussian_term(
    gaussian_table: TableName, attribute: str, name: str, own: list[exp.Expression]
) -> Term:
    """Leave-one-out Gaussian log-density of one numeric attribute: the class's mean and
    variance without the row (the exact moments of the class's other values for the row that
    holds its extreme value), floored by the full-data epsilon
    (``warehouse_ml/sql/models/learners/bayes/naive_bayes/term_gaussian.sql``)."""
    k = len(own)
    parts = (
        ("n", "n"), ("mean", "mean"), ("variance", "var"), ("epsilon", "eps"), ("extreme", "ext"),
        ("n_rest", "nr"), ("mean_rest", "mr"), ("variance_rest", "vr"),
    )  # fmt: skip
    columns = [item for part, prefix in parts for item in pivot_columns(part, k, prefix)]
    join = _one_row_join(_pivot(gaussian_table, attribute, columns), name)
    value = expressions.as_double(column(attribute, "s"))
    per_class = []
    for c in range(k):
        n, mean = column(f"n_{c}", name), column(f"mean_{c}", name)
        rest = {"extreme": column(f"ext_{c}", name), "n_rest": column(f"nr_{c}", name)}
        mean_out = templates.expression(
            "loo_mean", value=value, n=n, mean=mean, own=own[c],
            mean_rest=column(f"mr_{c}", name), **rest,
        )  # fmt: skip
        variance = templates.expression(
            "loo_variance",
            value=value,
            n=n,
            mean=mean,
            variance=column(f"var_{c}", name),
            mean_out=_paren(mean_out),
            own=own[c],
            epsilon=column(f"eps_{c}", name),
            variance_rest=column(f"vr_{c}", name),
            **rest,
        )
        per_class.append(
            templates.expression(
                "term_gaussian", value=value, mean=_paren(mean_out), variance=_paren(variance)
            )
        )
    return Term(per_class, [join])


def _check_model(model: Classifier) -> Classifier:
    """``model`` as the closed form takes it: of a kind declaring ExactLeaveOneOut, without a
    class_weight (the closed form subtracts each row's count of 1, and would ignore it)."""
    capabilities.require(
        model, ExactLeaveOneOut, "exact leave-one-out",
        "use cross_validate(..., folds=k) for k-fold instead",
    )  # fmt: skip
    if model.class_weight is not None:
        raise ParameterError(
            f"exact leave-one-out subtracts each row's count of 1, not a weight; got a model "
            f"with class_weight={model.class_weight!r}: cross-validate it with "
            "cross_validate(..., folds=k), k below the number of rows"
        )
    return model


def cross_validate_leave_one_out(
    con: Connectable,
    source: SourceLike,
    target: str,
    model: Classifier,
    *,
    key: str | None = None,
    features: Sequence[str] | None = None,
    categorical: Iterable[str] | None = None,
    numeric: Iterable[str] | None = None,
    keep: bool = False,
) -> Evaluation:
    """Exact leave-one-out cross-validation of an (unfitted) model of a kind that declares
    :class:`~warehouse_ml.models.capabilities.ExactLeaveOneOut` (Naive Bayes).

    Cost: one count scan (as ``fit``; with numeric attributes, their moments twice: over all
    rows and without each class's extreme value) and one scoring query over the rows; no
    per-row refits, no fold assignment table. See the module docstring for the closed form
    and its one approximation (the Gaussian variance floor).

    Args:
        con: a DuckDB connection, a database path, or a Warehouse.
        source: table/view name, Arrow table or reader, or a Parquet/CSV path.
        target: the class column; rows where it is NULL are neither counted nor scored.
        model: a NaiveBayes with its settings (alpha, prior_alpha, m, var_smoothing); it is not
            fitted. Kinds without ExactLeaveOneOut raise NotSupportedError (a ParameterError:
            use k-fold cross_validate).
        key: a unique integer or string column; None numbers the rows in scan order.
        features, categorical, numeric: as for ``fit``.
        keep: keep the predictions in schema ``wml`` (by default they are temporary, see
            evaluation.py).

    Returns:
        An :class:`~warehouse_ml.evaluation.result.Evaluation` over the predictions (columns: key
        (``wml_row`` BIGINT, 1-based scan ordinal, when None), ``fold`` (INTEGER, the row's
        0-based ordinal, see the module docstring), the target, ``p_<label>`` per class
        (DOUBLE), ``prediction``), with ``folds`` = number of scored rows.
    """
    with session(con, "cross_validate_leave_one_out") as warehouse:
        if isinstance(source, pa.RecordBatchReader):
            source = source.read_all()
        with open_source(warehouse, source) as src:
            return leave_one_out_open(
                warehouse, src, target, model, key=key, keep=keep,
                created_by="cross_validate_leave_one_out", described=settings(model),
                features=features, categorical=categorical, numeric=numeric,
            )  # fmt: skip


def leave_one_out_open(
    warehouse: Warehouse,
    src: Source,
    target: str,
    model: Classifier,
    *,
    key: str | None,
    keep: bool,
    created_by: str,
    described: str,
    features: Sequence[str] | None = None,
    categorical: Iterable[str] | None = None,
    numeric: Iterable[str] | None = None,
) -> Evaluation:
    """:func:`cross_validate_leave_one_out` of an open source, for a call already in a session
    (``created_by`` names it in the object registry; the evaluation's subject names the model
    as ``described``: its :func:`~warehouse_ml.evaluation.result.settings`, or a candidate's)."""
    nb = _check_model(model)
    chosen = choose_features(
        warehouse, src, target, features, keys=[key] if key else None,
        **nb.column_kinds(categorical, numeric),
    )  # fmt: skip
    key_column = key or splits.ROW_KEY
    splits.check_key(src, key)
    if key is None and splits.ROW_KEY.casefold() in {c.casefold() for c in src.columns}:
        raise ParameterError(
            f"source {src.description} has a column {splits.ROW_KEY!r}, the name leave-one-out "
            "gives its row numbers: pass it as key=..."
        )
    splits.profile(warehouse, src, key)  # a key must be unique and non-NULL
    classes, _ = class_counts(warehouse, src, target)
    labels = tuple(c.value for c in classes)
    probability_names = names.probability_columns(
        [str(c) for c in labels], warehouse.IDENTIFIER_BYTES
    )
    names.check_outputs(
        [key_column, target], [FOLD, *probability_names, PREDICTION], src.description
    )
    catalog.ensure(warehouse)
    loo_id = f"loo{uuid.uuid4().hex[:12]}"
    lifetime = ownership.KEPT if keep else ownership.SESSION
    results = Staging(
        warehouse, owner_kind="evaluation", owner=loo_id, created_by=created_by, version=loo_id,
        lifetime=lifetime, temporary=not keep,
    )  # fmt: skip
    work = ownership.work_tables(
        warehouse, owner_kind="evaluation", owner=loo_id, created_by=created_by,
        version=f"{loo_id}_work",
    )  # fmt: skip
    n_scored = total(classes)
    subject = f"Leave-one-out cross-validation of {described} on {src.description}"
    draft = Evaluation(
        warehouse, UNWRITTEN, target, labels, key_column, n_scored, None, loo_id,
        tuple(probability_names), keep, subject=subject,
    )  # fmt: skip
    with results, work:
        try:
            query = _scoring_query(
                warehouse, nb, src, key, target, chosen, classes, work, probability_names
            )
            predictions = results.table(PREDICTIONS, details=draft.facts())
            warehouse.run_tree(templates.create_table_as(predictions, query))
        finally:
            work.drop()
    return dataclasses.replace(draft, predictions=predictions)


def _scoring_query(
    warehouse: Warehouse,
    nb: ExactLeaveOneOut,
    src: Source,
    key: str | None,
    target: str,
    chosen: list[Any],
    classes: list[ClassCount],
    tables: Staging,
    probability_names: Sequence[str],
) -> exp.Query:
    """Fit the full-data parameter tables from one count scan of ``src`` (in ``tables``) and
    return the leave-one-out scoring query."""
    relation = src.relation
    categorical = [f.name for f in chosen if f.kind == CATEGORICAL]
    numeric = [f.name for f in chosen if f.kind == NUMERIC]

    def materialise(part: str, query: exp.Query) -> exp.Query:
        table = tables.table(part)
        warehouse.run_tree(templates.create_table_as(table, query))
        return exp.select(exp.Star()).from_(table.to_table())

    counts = moments = None
    if categorical:
        counted = valued_source(relation, [target], chosen)
        counts = materialise(
            "counts",
            counting.categorical_counts(counted, target, categorical, nb.block_size),
        )
    if numeric:
        moments = materialise("moments", numeric_moments(relation, target, numeric))
        rest = without_extremes(relation, target, numeric, tables.named("moments"))
        materialise("rest_moments", numeric_moments(rest, target, numeric))
    nb._write_count_parameters(warehouse, counts, moments, classes, tables, categorical=categorical)
    table = tables.named
    if categorical:
        create_categorical_table(
            warehouse, nb, tables.table("loo_categorical"), table("categorical"), table("unseen")
        )
    if numeric:
        warehouse.run(
            "create_loo_gaussian",
            table=tables.table("loo_gaussian"),
            gaussian=table("gaussian"),
            moments=table("moments"),
            rest_moments=table("rest_moments"),
            classes=table("classes"),
        )
    internal = _internal_names(src.columns, len(classes))
    own = own_columns(internal, len(classes))
    terms = [prior_term(table("classes"), own, total(classes), nb.prior_alpha)]
    for i, feature in enumerate(chosen):
        if feature.kind == CATEGORICAL:
            terms.append(categorical_term(table("loo_categorical"), feature, f"wml_a{i}", own))
        else:
            terms.append(gaussian_term(table("loo_gaussian"), feature.name, f"wml_g{i}", own))
    rows = scored_rows(relation, target, classes, key, internal)
    return score_query(
        rows.subquery("wml_scored_rows"),
        AdditiveTerms(terms),
        [c.value for c in classes],
        passthrough=[
            (key or internal["row"], key or splits.ROW_KEY),
            (internal["fold"], FOLD),
            (target, target),
        ],
        probability_names=probability_names,
        prediction_name=PREDICTION,
        materialized=warehouse.MATERIALIZED_STEPS,
    )
