"""Measures of how the probabilities rank the rows: ROC and recall-precision curves, AUC (of
one class and one-vs-rest), average precision and interpolated precision.

Each reads the cumulative counts of one or more classes (``select_cumulative_counts.sql``: per
distinct score, from the largest down, the positives and negatives scored at least that much);
rows with a NULL probability of the class are left out. The lift table (lift.py) reads the
same class scores (:func:`class_scores`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation.metrics.registry import (
    Call,
    Criterion,
    Measure,
    Method,
    Option,
    Report,
    binary,
    labelled,
    multiclass,
    option_fractions,
    register,
    table,
)
from warehouse_ml.evaluation.metrics.spec import (
    Spec,
    one_row,
    positive_index,
    prepared,
    with_labels,
)
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column

THREE_POINT_LEVELS = (0.2, 0.5, 0.8)
RANKING = "ranking, positive class {positive!r}"
"""The report section of the ranking measures."""


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


# -- queries -------------------------------------------------------------------------------
def class_scores(spec: Spec, src: Source, index: int) -> exp.Query:
    """One class's scores (``select_class_scores.sql``): class_index, score, positive."""
    return templates.build(
        "select_class_scores",
        predictions=prepared(spec, src),
        class_index=index,
        score=f"wml_p_{index}",
    )


def cumulative_counts(spec: Spec, src: Source, index: int) -> exp.Query:
    """One class's cumulative counts (``select_cumulative_counts.sql``), what every ranking
    measure of that class reads."""
    return _counts(spec, src, [index])


def _counts(spec: Spec, src: Source, indexes: Sequence[int]) -> exp.Query:
    if len(indexes) == 1 and indexes[0] in spec.counted:
        return exp.select(exp.Star()).from_(spec.counted[indexes[0]].to_table())
    scores = templates.union_all(class_scores(spec, src, i) for i in indexes)
    groups = templates.build("select_score_groups", scores=scores, count_type=spec.count_type)
    return templates.build("select_cumulative_counts", groups=groups)


def _of_positive(template: str) -> Callable[..., exp.Query]:
    """The builder of a template over the cumulative counts of the ``positive`` class."""

    def build(spec: Spec, src: Source, positive: Any = None) -> exp.Query:
        counts = _counts(spec, src, [positive_index(spec, positive)])
        return templates.build(template, counts=counts, count_type=spec.count_type)

    return build


_auc_query = _of_positive("select_auc")
_pr_points = _of_positive("select_precision_recall_points")
roc_points = _of_positive("select_roc_points")
_CURVE_COLUMNS = ("class_index", "point", "threshold", "tp", "fp")


def _thinned(points: exp.Query, columns: Sequence[str], max_points: int | None) -> exp.Query:
    """``points`` (a curve), or about ``max_points`` of them per class
    (``select_thinned_points.sql``) when given."""
    if max_points is None:
        return points
    if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 2:
        raise ParameterError(f"max_points must be an integer >= 2 or None, got {max_points!r}")
    return templates.build(
        "select_thinned_points",
        points=points,
        columns=[alias(column(c, "t"), c) for c in columns],
        max_points=max_points,
    )


def _roc_query(
    spec: Spec, src: Source, positive: Any = None, max_points: int | None = None
) -> exp.Query:
    points = roc_points(spec, src, positive)
    return _thinned(points, (*_CURVE_COLUMNS, "tpr", "fpr"), max_points)


def _pr_query(
    spec: Spec, src: Source, positive: Any = None, max_points: int | None = None
) -> exp.Query:
    points = _pr_points(spec, src, positive)
    return _thinned(points, (*_CURVE_COLUMNS, "precision", "recall"), max_points)


_average_precision_query = _of_positive("select_average_precision")


def _class_aucs_query(spec: Spec, src: Source) -> exp.Query:
    return templates.build(
        "select_auc", counts=_counts(spec, src, range(spec.k)), count_type=spec.count_type
    )


def _ovr_auc_query(spec: Spec, src: Source) -> exp.Query:
    return templates.build("select_ovr_auc", aucs=_class_aucs_query(spec, src))


def _levels(recall_levels: Sequence[float]) -> list[float]:
    return option_fractions(
        "recall_levels", recall_levels, "a recall level", "a list of numbers within (0, 1]"
    )


def _interpolated_query(
    spec: Spec,
    src: Source,
    positive: Any = None,
    recall_levels: Sequence[float] = THREE_POINT_LEVELS,
) -> exp.Query:
    return templates.build(
        "select_interpolated_precision",
        points=_pr_points(spec, src, positive),
        class_index=positive_index(spec, positive),
        levels=templates.values(
            list(enumerate(_levels(recall_levels))), "l", ["level_index", "recall_level"]
        ),
    )


def _interpolated_average_query(
    spec: Spec,
    src: Source,
    positive: Any = None,
    recall_levels: Sequence[float] = THREE_POINT_LEVELS,
) -> exp.Query:
    return templates.build(
        "select_interpolated_average",
        interpolated=_interpolated_query(spec, src, positive, recall_levels),
    )


# -- results -------------------------------------------------------------------------------
def _auc(call: Call, positive: Any = None) -> Auc:
    row = one_row(call.table(positive=positive), "AUC")
    index = row.pop("class_index")
    return Auc(positive=call.spec.labels[index], **row)


def _ovr_auc(call: Call) -> OvrAuc:
    aucs_table = call.fetch(_class_aucs_query)
    aucs = aucs_table.column("auc").to_pylist()
    positives = aucs_table.column("positives").to_pylist()
    defined = [a for a in aucs if a is not None]
    macro = math.fsum(defined) / len(defined) if len(defined) == len(aucs) else None
    total = sum(positives)
    weighted = (
        math.fsum(a * n for a, n in zip(aucs, positives, strict=True)) / total
        if macro is not None and total
        else None
    )
    return OvrAuc(macro, weighted, with_labels(aucs_table, call.spec))


def _average_precision(
    call: Call, positive: Any = None, recall_levels: Sequence[float] = THREE_POINT_LEVELS
) -> AveragePrecision:
    ap = one_row(call.table(positive=positive), "average precision")
    levels = call.fetch(_interpolated_query, positive=positive, recall_levels=recall_levels)
    interpolated = tuple(levels.column("precision").to_pylist())
    mean = math.fsum(p or 0.0 for p in interpolated) / len(interpolated)
    return AveragePrecision(
        positive=call.spec.labels[ap["class_index"]],
        average_precision=ap["average_precision"],
        interpolated_average_precision=mean,
        recall_levels=tuple(levels.column("recall_level").to_pylist()),
        interpolated_precision=interpolated,
    )


# -- entries -------------------------------------------------------------------------------
POSITIVE = Option("positive", None, "Any")
_MAX_POINTS = Option("max_points", None, "int | None")
_RECALL_LEVELS = Option("recall_levels", THREE_POINT_LEVELS, "Sequence[float]")

roc_curve = register(
    Measure(
        "roc_curve",
        _roc_query,
        doc="""ROC points of the ``positive`` class (default: the second class of a binary problem).

    Columns: class_index, class_label, point (0 = the origin, threshold NULL), threshold
    (DOUBLE: predict positive when score >= threshold; one point per distinct score, ties as
    one step, decreasing), tp, fp (BIGINT), tpr, fpr (DOUBLE). scikit-learn's
    ``roc_curve(drop_intermediate=False)`` gives the same points. ``max_points``: keep about
    that many of them (the first, the last and evenly spaced ones between), for drawing.
    """,
        options=(POSITIVE, _MAX_POINTS),
        result=labelled,
        method=Method(
            "roc_curve",
            ("positive", "max_points"),
            "ROC points for ``positive`` (default: the second class).",
        ),
        report=Report(settings=("positive",), table="roc"),
    )
)

roc_auc = register(
    Measure(
        "roc_auc",
        _auc_query,
        doc="""AUC of the ``positive`` class against the rest, rank-based (Mann-Whitney U / (P N)),
    equal to the trapezoid-rule area under :func:`roc_curve`.""",
        options=(POSITIVE,),
        result=_auc,
        returns="Auc",
        method=Method("auc", ("positive",), "Area under the ROC curve for ``positive``."),
        report=Report(settings=("positive",), section=RANKING, text=lambda r: f"AUC {r.auc:.4f}"),
        criterion=Criterion(
            "auc", attrgetter("auc"), larger_is_better=True, argument="positive", applies=binary
        ),
    )
)

precision_recall_curve = register(
    Measure(
        "precision_recall_curve",
        _pr_query,
        doc="""Recall-precision points of the ``positive`` class.

    Columns: class_index, class_label, point (0 = recall 0, precision 1, threshold NULL, as
    scikit-learn), threshold (DOUBLE, decreasing), tp, fp (BIGINT), precision, recall (DOUBLE).
    ``max_points``: keep about that many of them, as for :func:`roc_curve`.
    """,
        options=(POSITIVE, _MAX_POINTS),
        result=labelled,
        method=Method(
            "precision_recall_curve",
            ("positive", "max_points"),
            "Recall-precision points for ``positive`` (default: the second class).",
        ),
    )
)

average_precision = register(
    Measure(
        "average_precision",
        _average_precision_query,
        doc="""Average precision (scikit-learn's ``average_precision_score``: sum of recall gains
    times precision) and the interpolated average precision at ``recall_levels`` (default the
    three-point average at 20%, 50%, 80% recall; interpolated precision at r = the maximum
    precision over curve points with recall >= r).""",
        options=(POSITIVE, _RECALL_LEVELS),
        result=_average_precision,
        returns="AveragePrecision",
        method=Method(
            "average_precision",
            ("positive",),
            "Average precision and the three-point (20/50/80% recall) average.",
        ),
        report=Report(
            settings=("positive",),
            section=RANKING,
            text=lambda r: (
                f"average precision {r.average_precision:.4f}   "
                f"3-point AP {r.interpolated_average_precision:.4f}"
            ),
            same_line=True,
        ),
    )
)

interpolated_precision = register(
    Measure(
        "interpolated_precision",
        _interpolated_query,
        doc="""Interpolated precision of the ``positive`` class at each of ``recall_levels``: the
    largest precision of any curve point with recall >= the level (NULL when none reaches it).

    Columns: recall_level, precision (DOUBLE). Ordered as the levels.
    """,
        options=(POSITIVE, _RECALL_LEVELS),
        result=table,
    )
)

interpolated_average_precision = register(
    Measure(
        "interpolated_average_precision",
        _interpolated_average_query,
        doc="""The mean of :func:`interpolated_precision` over ``recall_levels`` (a level no point
    reaches counts as 0). Columns: interpolated_average_precision (DOUBLE), n_levels (BIGINT).
    """,
        options=(POSITIVE, _RECALL_LEVELS),
        result=table,
    )
)

class_auc = register(
    Measure(
        "class_auc",
        _class_aucs_query,
        doc="""AUC of every class against the rest (the per-class rows of :func:`ovr_auc`).

    Columns: class_index, class_label, positives, negatives (BIGINT), mann_whitney_u, auc
    (DOUBLE; NULL without positives or negatives).
    """,
        result=labelled,
    )
)

ovr_auc = register(
    Measure(
        "ovr_auc",
        _ovr_auc_query,
        doc="""One-vs-rest AUC of every class, with the macro and class-weighted (prevalence) means
    (scikit-learn's ``roc_auc_score(multi_class='ovr')``).""",
        result=_ovr_auc,
        returns="OvrAuc",
        method=Method("ovr_auc", (), "One-vs-rest AUC per class, macro and class-weighted."),
        report=Report(
            section=RANKING,
            text=lambda r: (
                f"one-vs-rest AUC: macro {r.macro_auc:.4f}, class-weighted {r.weighted_auc:.4f}"
            ),
            applies=multiclass,
        ),
        criterion=Criterion(
            "auc", attrgetter("macro_auc"), larger_is_better=True, applies=multiclass
        ),
    )
)
