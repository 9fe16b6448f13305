"""Evaluation measures as plain SQL over any predictions relation.

A *predictions relation* is any source (table or view name, Arrow table, Parquet/CSV path) with

* a true-label column (``target``);
* one probability column per class (``probabilities``: a mapping ``{label: column}`` in class
  order; by default every column named ``p_<label>``, as written by
  :meth:`Classifier.create_view`, with labels compared to ``CAST(target AS VARCHAR)``);
* optionally a prediction column (``prediction``); without one, the prediction is the class of
  largest probability (ties to the first class in class order).

Rows whose true label is NULL or not one of the classes are left out of every measure. Rows
with a NULL prediction are left out of the confusion-matrix measures; rows with a NULL
probability are left out of the ranking measures (ROC, PR, AUC, lift) of that class.

Every function renders ``sql/*.sql`` templates into one query, runs it in the warehouse and
returns an Arrow table or a small frozen dataclass. :func:`create_measure_view` stores the same
query as a view (plain SQL, no UDFs) that SQL clients can query later; :func:`measure_sql`
returns its text for any dialect. Logarithms are natural (``LN``); every division has a DOUBLE
side; sums of floating terms are ordered (see ``select_ordered_sum.sql``) so that the same input
gives the same result on every run.
"""

from __future__ import annotations

import functools
import itertools
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import ColumnError, DataError, ParameterError
from warehouse_ml.models import names
from warehouse_ml.models.names import PROBABILITY_PREFIX
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, alias, column, literal
from warehouse_ml.store import ownership

DEFAULT_FLOOR = float(np.finfo(np.float64).eps)
"""Default probability floor of :func:`log_score`: p is clipped to [eps, 1 - eps] with the
float64 machine epsilon (2.22e-16), as scikit-learn's ``log_loss`` does."""
THREE_POINT_LEVELS = (0.2, 0.5, 0.8)

_P = "p"  # alias of the prepared predictions in the templates


# -- results -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Accuracy:
    """Accuracy with its Wilson-form confidence interval (fractions in [0, 1]).

    ``kappa`` is Cohen's kappa (None when chance agreement is 1); ``level`` the interval's
    confidence level.
    """

    n: int
    correct: int
    accuracy: float
    error: float
    kappa: float | None
    level: float
    accuracy_low: float
    accuracy_high: float


@dataclass(frozen=True)
class Auc:
    """Area under the ROC curve of one class against the rest (None without positives or
    negatives); ``mann_whitney_u`` = auc * positives * negatives."""

    positive: Any
    positives: int
    negatives: int
    mann_whitney_u: float
    auc: float | None


@dataclass(frozen=True)
class OvrAuc:
    """One-vs-rest AUC: ``per_class`` has the columns of ``select_auc.sql`` plus ``class_label``."""

    macro_auc: float | None
    weighted_auc: float | None
    per_class: pa.Table


@dataclass(frozen=True)
class AveragePrecision:
    """Average precision (scikit-learn's step sum) and the interpolated average precision at
    ``recall_levels`` (precision at level r = the largest precision at any recall >= r; a level
    no point reaches counts as 0). Defaults give the three-point average at 20/50/80% recall."""

    positive: Any
    average_precision: float | None
    interpolated_average_precision: float | None
    recall_levels: tuple[float, ...]
    interpolated_precision: tuple[float | None, ...]


@dataclass(frozen=True)
class ScoringRule:
    """A proper scoring rule: ``total`` over ``n`` rows and its ``mean`` (lower is better)."""

    n: int
    total: float
    mean: float


@dataclass(frozen=True)
class LossSummary:
    """Mean loss per row under a loss matrix L(true, predicted):

    * ``prediction_loss``: of the prediction column (or the argmax prediction);
    * ``decision_loss``: of the minimum-expected-loss decisions;
    * ``expected_loss``: the model's own expectation of the decisions' loss (mean over rows of
      min_j sum_c L(c, j) p_c).
    """

    n: int
    prediction_loss: float | None
    decision_loss: float | None
    expected_loss: float | None


# -- resolving a predictions relation ------------------------------------------------------
@dataclass(frozen=True)
class _Spec:
    target: str
    labels: tuple[Any, ...]
    columns: tuple[str, ...]
    prediction: str | None
    as_text: bool

    @property
    def k(self) -> int:
        return len(self.labels)

    def index_of(self, label: Any) -> int:
        for i, mine in enumerate(self.labels):
            if mine == label or (self.as_text and mine == str(label)):
                return i
        raise ParameterError(f"class {label!r} is not one of the classes {list(self.labels)}")

    def classes(self, name: str) -> exp.Values:
        return templates.values(
            [[i, label] for i, label in enumerate(self.labels)],
            name,
            ["class_index", "class_label"],
        )


def _resolve(
    src: Source,
    target: str,
    probabilities: Mapping[Any, str] | None,
    prediction: str | None,
) -> _Spec:
    src.field(target)
    if probabilities is None:
        columns = [c for c in src.columns if c.startswith(PROBABILITY_PREFIX)]
        labels: list[Any] = [c[len(PROBABILITY_PREFIX) :] for c in columns]
        as_text = True
        if not columns:
            raise ColumnError(
                f"source {src.description} has no probability columns named "
                f"'{PROBABILITY_PREFIX}<label>'; pass probabilities={{label: column, ...}}"
            )
    else:
        labels, columns = list(probabilities.keys()), list(probabilities.values())
        as_text = False
    if len(labels) < 2:
        raise ParameterError(f"expected at least two classes, got {labels!r}")
    for name in columns:
        src.field(name)
    if prediction is not None:
        src.field(prediction)
    return _Spec(target, tuple(labels), tuple(columns), prediction, as_text)


def _label_index(spec: _Spec, value: exp.Expression) -> exp.Expression:
    """CASE mapping a label column to its class index (NULL for other values)."""
    compared = exp.cast(value, exp.DataType.Type.VARCHAR) if spec.as_text else value
    case = exp.case()
    for i, label in enumerate(spec.labels):
        case = case.when(exp.EQ(this=compared.copy(), expression=literal(label)), literal(i))
    return case


def _first_extreme(items: Sequence[exp.Expression], least: bool) -> exp.Expression:
    """CASE giving the index of the first largest (or least) item; NULLs are skipped."""
    node = exp.Least if least else exp.Greatest
    best = node(this=items[0].copy(), expressions=[i.copy() for i in items[1:]], ignore_nulls=True)
    case = exp.case()
    for i, item in enumerate(items):
        case = case.when(exp.EQ(this=item.copy(), expression=best.copy()), literal(i))
    return case


def _prepared(spec: _Spec, src: Source, keys: Sequence[str] = ()) -> exp.Query:
    probability = [exp.cast(column(c, "src"), exp.DataType.Type.DOUBLE) for c in spec.columns]
    predicted = (
        _label_index(spec, column(spec.prediction, "src"))
        if spec.prediction is not None
        else _first_extreme(probability, least=False)
    )
    for key in keys:
        src.field(key)
    return templates.build(
        "select_prepared_predictions",
        source=src.relation,
        keys=[alias(column(k, "src"), _key(i)) for i, k in enumerate(keys)],
        truth=_label_index(spec, column(spec.target, "src")),
        predicted=predicted,
        probabilities=[alias(p, f"wml_p_{i}") for i, p in enumerate(probability)],
    )


def _key(index: int) -> str:
    """The prepared predictions' name of the key column at ``index`` (the prepared relation
    carries only the library's names; keys get theirs back in the measure's output)."""
    return f"wml_k_{index}"


def _positive(spec: _Spec, positive: Any) -> int:
    if positive is None:
        if spec.k != 2:
            raise ParameterError(
                f"choose the positive class with positive=...: there are {spec.k} classes "
                f"{list(spec.labels)}"
            )
        return 1
    return spec.index_of(positive)


def _scores(spec: _Spec, src: Source, index: int) -> exp.Query:
    return templates.build(
        "select_class_scores",
        predictions=_prepared(spec, src),
        class_index=index,
        score=f"wml_p_{index}",
    )


def _groups(spec: _Spec, src: Source, indexes: Sequence[int]) -> exp.Query:
    scores = templates.union_all(_scores(spec, src, i) for i in indexes)
    return templates.build("select_score_groups", scores=scores)


def _counts(spec: _Spec, src: Source, indexes: Sequence[int]) -> exp.Query:
    return templates.build("select_cumulative_counts", groups=_groups(spec, src, indexes))


# -- query builders, one per measure -------------------------------------------------------
def _confusion_query(spec: _Spec, src: Source) -> exp.Query:
    return templates.build(
        "select_confusion_cells",
        predictions=_prepared(spec, src),
        true_classes=spec.classes("t"),
        predicted_classes=spec.classes("q"),
    )


def _z(level: float) -> float:
    level = float(level)
    if not 0.0 < level < 1.0:
        raise ParameterError(f"level must be within (0, 1), got {level!r}")
    return statistics.NormalDist().inv_cdf((1.0 + level) / 2.0)


def _accuracy_query(spec: _Spec, src: Source, level: float = 0.95) -> exp.Query:
    return templates.build(
        "select_accuracy", cells=_confusion_query(spec, src), z=_z(level), level=float(level)
    )


def _beta_squared(beta: float) -> float:
    beta = float(beta)
    if not beta > 0 or math.isinf(beta):
        raise ParameterError(f"beta must be a positive finite number, got {beta!r}")
    return beta * beta


def _class_measures_query(spec: _Spec, src: Source, beta: float = 1.0) -> exp.Query:
    return templates.build(
        "select_class_measures", cells=_confusion_query(spec, src), beta_squared=_beta_squared(beta)
    )


def _averaged_measures_query(spec: _Spec, src: Source, beta: float = 1.0) -> exp.Query:
    return templates.build(
        "select_averaged_measures", measures=_class_measures_query(spec, src, beta)
    )


def _roc_query(spec: _Spec, src: Source, positive: Any = None) -> exp.Query:
    return templates.build(
        "select_roc_points", counts=_counts(spec, src, [_positive(spec, positive)])
    )


def _auc_query(spec: _Spec, src: Source, positive: Any = None) -> exp.Query:
    return templates.build("select_auc", counts=_counts(spec, src, [_positive(spec, positive)]))


def _class_aucs_query(spec: _Spec, src: Source) -> exp.Query:
    return templates.build("select_auc", counts=_counts(spec, src, range(spec.k)))


def _ovr_auc_query(spec: _Spec, src: Source) -> exp.Query:
    return templates.build("select_ovr_auc", aucs=_class_aucs_query(spec, src))


def _pr_query(spec: _Spec, src: Source, positive: Any = None) -> exp.Query:
    return templates.build(
        "select_precision_recall_points", counts=_counts(spec, src, [_positive(spec, positive)])
    )


def _average_precision_query(spec: _Spec, src: Source, positive: Any = None) -> exp.Query:
    return templates.build(
        "select_average_precision", counts=_counts(spec, src, [_positive(spec, positive)])
    )


def _levels(recall_levels: Sequence[float]) -> list[float]:
    levels = [float(x) for x in recall_levels]
    if not levels or any(not 0.0 < x <= 1.0 for x in levels):
        raise ParameterError(f"recall levels must be within (0, 1], got {list(recall_levels)!r}")
    return levels


def _interpolated_query(
    spec: _Spec,
    src: Source,
    positive: Any = None,
    recall_levels: Sequence[float] = THREE_POINT_LEVELS,
) -> exp.Query:
    index = _positive(spec, positive)
    return templates.build(
        "select_interpolated_precision",
        points=templates.build(
            "select_precision_recall_points", counts=_counts(spec, src, [index])
        ),
        class_index=index,
        levels=templates.values(
            list(enumerate(_levels(recall_levels))), "l", ["level_index", "recall_level"]
        ),
    )


def _interpolated_average_query(
    spec: _Spec,
    src: Source,
    positive: Any = None,
    recall_levels: Sequence[float] = THREE_POINT_LEVELS,
) -> exp.Query:
    return templates.build(
        "select_interpolated_average",
        interpolated=_interpolated_query(spec, src, positive, recall_levels),
    )


def _fractions(quantiles: int | Sequence[float]) -> list[float]:
    if isinstance(quantiles, int) and not isinstance(quantiles, bool):
        if quantiles < 1:
            raise ParameterError(f"quantiles must be >= 1, got {quantiles!r}")
        return [(j + 1) / quantiles for j in range(quantiles)]
    fractions = [float(f) for f in quantiles]
    if (
        not fractions
        or any(not 0.0 < f <= 1.0 for f in fractions)
        or any(b <= a for a, b in itertools.pairwise(fractions))
    ):
        raise ParameterError(
            "quantiles must be a count or increasing cumulative fractions within (0, 1], "
            f"got {list(quantiles)!r}"
        )
    if fractions[-1] != 1.0:
        fractions.append(1.0)
    return fractions


def _lift_query(
    spec: _Spec, src: Source, positive: Any = None, quantiles: int | Sequence[float] = 10
) -> exp.Query:
    fractions = _fractions(quantiles)
    bucket = exp.case()
    for j, fraction in enumerate(fractions):
        within = templates.expression(
            "quantile_bound",
            rank=column("wml_rank", "r"),
            rows=column("wml_rows", "r"),
            fraction=fraction,
        )
        bucket = bucket.when(within, literal(j + 1))
    return templates.build(
        "select_lift_table",
        scores=_scores(spec, src, _positive(spec, positive)),
        bucket=bucket,
        quantiles=templates.values(
            [[j + 1, f] for j, f in enumerate(fractions)], "q", ["quantile", "fraction"]
        ),
    )


def _sum_of(terms: exp.Query) -> exp.Query:
    return templates.build("select_ordered_sum", terms=terms)


def _log_score_query(spec: _Spec, src: Source, floor: float = DEFAULT_FLOOR) -> exp.Query:
    floor = float(floor)
    if not 0.0 < floor < 0.5:
        raise ParameterError(f"floor must be within (0, 0.5), got {floor!r}")
    truth = column("wml_truth", _P)
    p_true = exp.case()
    for i in range(spec.k):
        p_true = p_true.when(
            exp.EQ(this=truth.copy(), expression=literal(i)), column(f"wml_p_{i}", _P)
        )
    term = templates.expression("clipped_log_loss", probability=p_true, floor=floor)
    return _sum_of(templates.build("select_row_terms", predictions=_prepared(spec, src), term=term))


def _brier_query(spec: _Spec, src: Source, positive: Any = None) -> exp.Query:
    indexes = [_positive(spec, positive)] if spec.k == 2 else list(range(spec.k))
    if spec.k > 2 and positive is not None:
        raise ParameterError("positive=... applies to binary Brier scores only")
    parts = [
        templates.expression(
            "squared_error",
            probability=column(f"wml_p_{i}", _P),
            truth=column("wml_truth", _P),
            class_index=i,
        )
        for i in indexes
    ]
    term = functools.reduce(lambda a, b: exp.Add(this=a, expression=b), parts)
    return _sum_of(templates.build("select_row_terms", predictions=_prepared(spec, src), term=term))


def _loss_matrix(spec: _Spec, loss: Sequence[Sequence[float]]) -> list[list[float]]:
    matrix = [[float(x) for x in row] for row in loss]
    if len(matrix) != spec.k or any(len(row) != spec.k for row in matrix):
        raise ParameterError(
            f"loss matrix must be {spec.k}x{spec.k} (classes {list(spec.labels)}, "
            f"L[true][predicted]), got {len(matrix)} rows"
        )
    if any(not math.isfinite(x) for row in matrix for x in row):
        raise ParameterError("loss matrix entries must be finite numbers")
    return matrix


def _decisions_query(
    spec: _Spec, src: Source, loss: Sequence[Sequence[float]] = (), keys: Sequence[str] = ()
) -> exp.Query:
    matrix = _loss_matrix(spec, loss)
    expected = []
    for j in range(spec.k):
        parts = [
            exp.Mul(this=literal(matrix[c][j]), expression=column(f"wml_p_{c}", _P))
            for c in range(spec.k)
        ]
        expected.append(functools.reduce(lambda a, b: exp.Add(this=a, expression=b), parts))
    losses_l = [column(f"wml_loss_{j}", "l") for j in range(spec.k)]
    losses_d = [column(f"wml_loss_{j}", "d") for j in range(spec.k)]
    minimum = exp.Least(this=losses_l[0], expressions=losses_l[1:], ignore_nulls=True)
    decision = exp.case()
    for j, item in enumerate(losses_d):
        decision = decision.when(
            exp.EQ(this=item, expression=column("wml_minimum", "d")), literal(j)
        )
    names.check_outputs(keys, DECISION_COLUMNS, src.description)
    return templates.build(
        "select_loss_decisions",
        predictions=_prepared(spec, src, keys),
        keys=[alias(column(_key(i), "c"), k) for i, k in enumerate(keys)],
        expected_losses=[alias(e, f"wml_loss_{j}") for j, e in enumerate(expected)],
        minimum=minimum,
        decision=decision,
        classes=spec.classes("k"),
        true_classes=spec.classes("t"),
    )


DECISION_COLUMNS = (
    "true_class",
    "decision",
    "expected_loss",
    "true_index",
    "decision_index",
    "predicted_index",
)
"""The columns select_loss_decisions.sql adds after the keys."""


def _loss_summary_query(
    spec: _Spec, src: Source, loss: Sequence[Sequence[float]] = ()
) -> exp.Query:
    matrix = _loss_matrix(spec, loss)
    decisions = _decisions_query(spec, src, matrix)
    costs = [[i, j, matrix[i][j]] for i in range(spec.k) for j in range(spec.k)]

    def incurred(chosen: str) -> exp.Query:
        return templates.build(
            "select_incurred_loss",
            decisions=decisions,
            chosen=chosen,
            costs=templates.values(costs, "m", ["true_index", "predicted_index", "loss"]),
        )

    expected = templates.build(
        "select_row_terms", predictions=decisions, term=column("expected_loss", _P)
    )
    return templates.build(
        "select_loss_summary",
        prediction_sum=_sum_of(incurred("predicted_index")),
        decision_sum=_sum_of(incurred("decision_index")),
        expected_sum=_sum_of(expected),
    )


_QUERIES: dict[str, Callable[..., exp.Query]] = {
    "confusion_matrix": _confusion_query,
    "accuracy": _accuracy_query,
    "class_measures": _class_measures_query,
    "averaged_measures": _averaged_measures_query,
    "roc_curve": _roc_query,
    "roc_auc": _auc_query,
    "class_auc": _class_aucs_query,
    "ovr_auc": _ovr_auc_query,
    "precision_recall_curve": _pr_query,
    "average_precision": _average_precision_query,
    "interpolated_precision": _interpolated_query,
    "interpolated_average_precision": _interpolated_average_query,
    "lift_table": _lift_query,
    "log_score": _log_score_query,
    "brier_score": _brier_query,
    "loss_decisions": _decisions_query,
    "expected_loss": _loss_summary_query,
}
MEASURES = tuple(sorted(_QUERIES))
"""Names accepted by :func:`create_measure_view` and :func:`measure_sql`."""


def _fetch(
    con: Connectable,
    predictions: SourceLike,
    target: str,
    probabilities: Mapping[Any, str] | None,
    prediction: str | None,
    build: Callable[..., exp.Query],
    **options: Any,
) -> tuple[pa.Table, _Spec]:
    with session(con) as warehouse, open_source(warehouse, predictions) as src:
        spec = _resolve(src, target, probabilities, prediction)
        return warehouse.fetch_tree(build(spec, src, **options)), spec


def _one_row(table: pa.Table, what: str) -> dict[str, Any]:
    rows = table.to_pylist()
    if len(rows) != 1:
        raise DataError(f"no rows to compute {what} from (no row has a known true class)")
    return rows[0]


def _with_labels(table: pa.Table, spec: _Spec, index_column: str = "class_index") -> pa.Table:
    labels = [spec.labels[i] for i in table.column(index_column).to_pylist()]
    position = table.schema.get_field_index(index_column) + 1
    return table.add_column(position, "class_label", pa.array(labels))


# -- public functions ------------------------------------------------------------------------
def confusion_matrix(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
) -> pa.Table:
    """The confusion matrix, one row per (true class, predicted class), zero cells included.

    Columns: true_index, true_class, predicted_index, predicted_class, n (BIGINT rows),
    fraction (of all rows), row_fraction (of the true class's rows). Ordered by true_index,
    predicted_index; ``n`` reshaped to KxK in that order is scikit-learn's confusion_matrix.
    """
    table, _ = _fetch(con, predictions, target, probabilities, prediction, _confusion_query)
    return table


def accuracy(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
    level: float = 0.95,
) -> Accuracy:
    """Accuracy, error (1 - accuracy), Cohen's kappa and the Wilson-form accuracy interval at
    confidence ``level`` (z = the normal quantile of (1 + level) / 2), all fractions."""
    table, _ = _fetch(
        con, predictions, target, probabilities, prediction, _accuracy_query, level=level
    )
    return Accuracy(**_one_row(table, "accuracy"))


def class_measures(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
    beta: float = 1.0,
) -> pa.Table:
    """Per-class measures, one class against the rest.

    Columns: class_index, class_label, support (true rows), predicted, tp, fp, fn, tn
    (BIGINT), precision, recall (TPR), specificity (TNR), fpr, f_measure (F-beta; DOUBLE
    fractions; a zero denominator gives 0, scikit-learn's ``zero_division=0``).
    """
    table, _ = _fetch(
        con, predictions, target, probabilities, prediction, _class_measures_query, beta=beta
    )
    return table


def averaged_measures(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
    beta: float = 1.0,
) -> pa.Table:
    """Macro (mean over all K classes) and weighted (by support) averages of the per-class
    measures. Columns: average ('macro', 'weighted'), precision, recall, specificity, fpr,
    f_measure (DOUBLE)."""
    table, _ = _fetch(
        con, predictions, target, probabilities, prediction, _averaged_measures_query, beta=beta
    )
    return table


def roc_curve(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    positive: Any = None,
) -> pa.Table:
    """ROC points of the ``positive`` class (default: the second class of a binary problem).

    Columns: class_index, class_label, point (0 = the origin, threshold NULL), threshold
    (DOUBLE: predict positive when score >= threshold; one point per distinct score, ties as
    one step, decreasing), tp, fp (BIGINT), tpr, fpr (DOUBLE). scikit-learn's
    ``roc_curve(drop_intermediate=False)`` gives the same points.
    """
    table, spec = _fetch(
        con, predictions, target, probabilities, None, _roc_query, positive=positive
    )
    return _with_labels(table, spec)


def roc_auc(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    positive: Any = None,
) -> Auc:
    """AUC of the ``positive`` class against the rest, rank-based (Mann-Whitney U / (P N)),
    equal to the trapezoid-rule area under :func:`roc_curve`."""
    table, spec = _fetch(
        con, predictions, target, probabilities, None, _auc_query, positive=positive
    )
    row = _one_row(table, "AUC")
    index = row.pop("class_index")
    return Auc(positive=spec.labels[index], **row)


def ovr_auc(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
) -> OvrAuc:
    """One-vs-rest AUC of every class, with the macro and class-weighted (prevalence) means
    (scikit-learn's ``roc_auc_score(multi_class='ovr')``)."""
    table, spec = _fetch(con, predictions, target, probabilities, None, _class_aucs_query)
    per_class = _with_labels(table, spec)
    aucs = table.column("auc").to_pylist()
    positives = table.column("positives").to_pylist()
    defined = [a for a in aucs if a is not None]
    macro = math.fsum(defined) / len(defined) if len(defined) == len(aucs) else None
    total = sum(positives)
    weighted = (
        math.fsum(a * n for a, n in zip(aucs, positives, strict=True)) / total
        if macro is not None and total
        else None
    )
    return OvrAuc(macro, weighted, per_class)


def precision_recall_curve(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    positive: Any = None,
) -> pa.Table:
    """Recall-precision points of the ``positive`` class.

    Columns: class_index, class_label, point (0 = recall 0, precision 1, threshold NULL, as
    scikit-learn), threshold (DOUBLE, decreasing), tp, fp (BIGINT), precision, recall (DOUBLE).
    """
    table, spec = _fetch(
        con, predictions, target, probabilities, None, _pr_query, positive=positive
    )
    return _with_labels(table, spec)


def average_precision(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    positive: Any = None,
    recall_levels: Sequence[float] = THREE_POINT_LEVELS,
) -> AveragePrecision:
    """Average precision (scikit-learn's ``average_precision_score``: sum of recall gains times
    precision) and the interpolated average precision at ``recall_levels`` (default the
    three-point average at 20%, 50%, 80% recall; interpolated precision at r = the maximum
    precision over curve points with recall >= r)."""
    ap_table, spec = _fetch(
        con, predictions, target, probabilities, None, _average_precision_query, positive=positive
    )
    levels_table, _ = _fetch(
        con,
        predictions,
        target,
        probabilities,
        None,
        _interpolated_query,
        positive=positive,
        recall_levels=recall_levels,
    )
    ap = _one_row(ap_table, "average precision")
    interpolated = tuple(levels_table.column("precision").to_pylist())
    mean = math.fsum(p or 0.0 for p in interpolated) / len(interpolated)
    return AveragePrecision(
        positive=spec.labels[ap["class_index"]],
        average_precision=ap["average_precision"],
        interpolated_average_precision=mean,
        recall_levels=tuple(levels_table.column("recall_level").to_pylist()),
        interpolated_precision=interpolated,
    )


def lift_table(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    positive: Any = None,
    quantiles: int | Sequence[float] = 10,
) -> pa.Table:
    """Lift table of the ``positive`` class over quantiles of decreasing confidence in it.

    ``quantiles``: a count of equal quantiles (deciles by default) or increasing cumulative
    fractions such as ``[0.05, 0.2, 0.5]`` (1.0 is added when missing). Rows are ordered by
    decreasing score, ties broken with negatives first (a total, pessimistic order); quantile
    j holds the ranks up to FLOOR(fraction_j * n + 0.5).

    Columns: quantile (1-based), fraction, size, positives, accuracy (share of the class in the
    quantile), lift (accuracy / base rate), cumulative_size, cumulative_positives,
    cumulative_accuracy, cumulative_lift, gain (cumulative positives / all positives),
    min_score, max_score.
    """
    table, _ = _fetch(
        con,
        predictions,
        target,
        probabilities,
        None,
        _lift_query,
        positive=positive,
        quantiles=quantiles,
    )
    return table


def log_score(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    floor: float = DEFAULT_FLOOR,
) -> ScoringRule:
    """Logarithmic score: total and mean of -ln p(true class), natural log (nats), with p
    clipped to [floor, 1 - floor] (default float64 eps, as scikit-learn's ``log_loss``; a NULL
    probability counts as the floor). The mean is scikit-learn's log loss."""
    table, _ = _fetch(con, predictions, target, probabilities, None, _log_score_query, floor=floor)
    return ScoringRule(**_one_row(table, "the log score"))


def brier_score(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    positive: Any = None,
) -> ScoringRule:
    """Brier score. Binary: mean over rows of (p_positive - [true = positive])^2, as
    scikit-learn's ``brier_score_loss`` (positive: default the second class). Multiclass: mean
    over rows of the sum over classes of (p_c - [true = c])^2 (scikit-learn's multiclass form,
    in [0, 2])."""
    table, _ = _fetch(
        con, predictions, target, probabilities, None, _brier_query, positive=positive
    )
    return ScoringRule(**_one_row(table, "the Brier score"))


def loss_decisions(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    loss: Sequence[Sequence[float]],
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
    keys: Sequence[str] = (),
) -> pa.Table:
    """The minimum-expected-loss decision for each row: argmin_j sum_c L(c, j) p_c, ties to
    the first class; ``loss[c][j]`` is the cost of predicting class j when the truth is c.

    Columns: the ``keys`` columns, true_class, decision (labels), expected_loss (DOUBLE, the
    decision's expected loss), true_index, decision_index, predicted_index (INTEGER).
    """
    table, _ = _fetch(
        con,
        predictions,
        target,
        probabilities,
        prediction,
        _decisions_query,
        loss=loss,
        keys=keys,
    )
    return table


def expected_loss(
    con: Connectable,
    predictions: SourceLike,
    *,
    target: str,
    loss: Sequence[Sequence[float]],
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
) -> LossSummary:
    """Mean loss per row under ``loss`` (L[true][predicted]) of the predictions, of the
    minimum-expected-loss decisions, and the decisions' expected loss (see
    :class:`LossSummary`)."""
    table, _ = _fetch(
        con, predictions, target, probabilities, prediction, _loss_summary_query, loss=loss
    )
    return LossSummary(**_one_row(table, "the expected loss"))


def measure_sql(
    con: Connectable,
    measure: str,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
    dialect: str | None = None,
    **options: Any,
) -> str:
    """The SQL text of one measure's query (a name in :data:`MEASURES`) in ``dialect``
    (default: the connection's). ``options`` are the measure's own keyword arguments
    (level, beta, positive, quantiles, recall_levels, floor, loss, keys)."""
    build = _measure(measure)
    with session(con) as warehouse, open_source(warehouse, predictions) as src:
        spec = _resolve(src, target, probabilities, prediction)
        return templates.generate(build(spec, src, **options), dialect or warehouse.dialect)


def create_measure_view(
    con: Connectable,
    view: str | Sequence[str] | TableName,
    measure: str,
    predictions: str | Sequence[str] | TableName,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
    **options: Any,
) -> TableName:
    """Create (or replace) a plain-SQL view computing ``measure`` over a durable predictions
    relation (a table or view name, or a Parquet/CSV path). The view's columns are those of the
    measure's template (see the ``sql/select_*.sql`` headers; ranking views keep class_index
    and have no class_label column). The view is warehouse-ml's own (ownership.py): its name
    must be new or a measure view made earlier (replaced); a user's object of that name, or the
    predictions relation itself, is a NameConflictError before anything runs."""
    build = _measure(measure)
    with session(con) as warehouse, open_source(warehouse, predictions) as src:
        src.durable_spec("a measure view")
        spec = _resolve(src, target, probabilities, prediction)
        query = build(spec, src, **options)
        sources = [] if src.object is None else [src.object]
        claimed = ownership.claim(warehouse, TableName.parse(view), "view", sources=sources)
        return ownership.create(
            warehouse, claimed, query, owner_kind="measure", owner=str(claimed.target),
            role=measure, created_by="create_measure_view", lifetime=ownership.KEPT,
        )  # fmt: skip


def _measure(measure: str) -> Callable[..., exp.Query]:
    try:
        return _QUERIES[measure]
    except KeyError:
        raise ParameterError(f"unknown measure {measure!r}; expected one of {MEASURES}") from None
