"""The lift table: lift and cumulative gains of one class over quantiles of decreasing
confidence in it (``warehouse_ml/sql/evaluation/metrics/select_lift_table.sql``)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ParameterError
from warehouse_ml.evaluation.metrics.ranking import POSITIVE, class_scores
from warehouse_ml.evaluation.metrics.registry import (
    Measure,
    Method,
    Option,
    Report,
    option_fractions,
    register,
)
from warehouse_ml.evaluation.metrics.spec import Spec, positive_index
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import column, literal


def _fractions(quantiles: int | Sequence[float]) -> list[float]:
    if isinstance(quantiles, int) and not isinstance(quantiles, bool):
        if quantiles < 1:
            raise ParameterError(f"quantiles must be >= 1, got {quantiles!r}")
        return [(j + 1) / quantiles for j in range(quantiles)]
    expected = "a count or increasing cumulative fractions within (0, 1]"
    fractions = option_fractions("quantiles", quantiles, "a quantile", expected)
    if any(b <= a for a, b in itertools.pairwise(fractions)):
        raise ParameterError(f"quantiles must be {expected}, got {list(quantiles)!r}")
    if fractions[-1] != 1.0:
        fractions.append(1.0)
    return fractions


def _lift_query(
    spec: Spec, src: Source, positive: Any = None, quantiles: int | Sequence[float] = 10
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
        scores=class_scores(spec, src, positive_index(spec, positive)),
        bucket=bucket,
        quantiles=templates.values(
            [[j + 1, f] for j, f in enumerate(fractions)], "q", ["quantile", "fraction"]
        ),
        count_type=spec.count_type,
        **_ranks(spec),
    )


def _ranks(spec: Spec) -> dict[str, exp.Expression]:
    """A row's rank in decreasing score (positives last) and the rows ranked: ROW_NUMBER and
    COUNT(*), or for a weighted table the cumulative and total weight (ties broken by the
    weight too, so equal rows take the same places in any order)."""
    score, positive, weight = (column(c, "s") for c in ("score", "positive", "weight"))
    order = [exp.Ordered(this=score, desc=True), exp.Ordered(this=positive)]
    if spec.weight is None:
        rank = exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=order))
        return {"rank": rank, "rows": exp.Window(this=exp.Count(this=exp.Star()))}
    running = exp.WindowSpec(
        kind="ROWS", start="UNBOUNDED", start_side="PRECEDING", end="CURRENT ROW"
    )
    rank = exp.Window(
        this=exp.Sum(this=weight.copy()),
        order=exp.Order(expressions=[*order, exp.Ordered(this=weight.copy())]),
        spec=running,
    )
    return {"rank": rank, "rows": exp.Window(this=exp.Sum(this=weight))}


lift_table = register(
    Measure(
        "lift_table",
        _lift_query,
        doc="""Lift table of the ``positive`` class over quantiles of decreasing confidence in it.

    ``quantiles``: a count of equal quantiles (deciles by default) or increasing cumulative
    fractions such as ``[0.05, 0.2, 0.5]`` (1.0 is added when missing). Rows are ordered by
    decreasing score, ties broken with negatives first (a total, pessimistic order); quantile
    j holds the ranks up to FLOOR(fraction_j * n + 0.5).

    Columns: quantile (1-based), fraction, size, positives, accuracy (share of the class in the
    quantile), lift (accuracy / base rate), cumulative_size, cumulative_positives,
    cumulative_accuracy, cumulative_lift, gain (cumulative positives / all positives),
    min_score, max_score.
    """,
        options=(POSITIVE, Option("quantiles", 10, "int | Sequence[float]")),
        method=Method(
            "lift_table",
            ("positive", "quantiles"),
            "Lift and cumulative gains per quantile of decreasing confidence in ``positive``.",
        ),
        report=Report(settings=("positive",), section="lift by decile", table="lift"),
    )
)
