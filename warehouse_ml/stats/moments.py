"""Per-class moments of numeric attributes (Gaussian Naive Bayes), identical on every run.

A parallel ``AVG`` or ``VAR_POP`` of DOUBLE values depends on the order in which the engine's
threads add their partial sums, so its last bits change between runs and thread counts. Here
every sum is exact (warehouse_ml/sql/stats/select_exact_class_moments.sql):

* the mean: values are scaled by the attribute's largest finite magnitude ``u`` in their class
  (and partition) (into [-1, 1]) and summed as DECIMAL(38, 26); ``mean = sum(x / u) / n * u``;
* the population variance, in a second pass: deviations from the class mean are scaled by the
  class's range ``v = max - min`` (into [-1, 1]), squared and summed as DECIMAL(38, 26);
  ``variance = sum(((x - mean) / v)^2) / n * v^2`` (0 when every value is equal).

Each term is rounded to 1e-26 of its scale before the exact sum, far below DOUBLE precision of
the result. The scales are each class's own: one scale over all rows of an attribute left a
class's values one significant digit when another class held a value 1e25 times larger. MIN,
MAX and COUNT are exact in any order. Non-finite values keep the plain ``AVG``/``VAR_POP``
(non-finite), which the fit refuses by name.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from sqlglot import exp

from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, alias, column, literal
from warehouse_ml.stats.counting import PARTITION, count_type, partition_items

EXACT = exp.DataType.build("DECIMAL(38, 26)")
"""Type of the exact sums: 12 integer digits (up to 10^12 rows of terms in [-1, 1])."""

LARGEST = literal(sys.float_info.max)
"""ABS(x) <= LARGEST is false for NaN and +-inf on DuckDB, PostgreSQL and Spark."""


def _double(value: exp.Expression) -> exp.Expression:
    return exp.cast(value, exp.DataType.Type.DOUBLE)


def _case(condition: exp.Expression, then: exp.Expression) -> exp.Expression:
    """``CASE WHEN condition THEN then END`` (NULL otherwise)."""
    return exp.case().when(condition, then)


def _exact_sum(term: exp.Expression) -> exp.Expression:
    """``CAST(SUM(CAST(term AS DECIMAL(38, 26))) AS DOUBLE)``: an order-free sum."""
    return _double(exp.Sum(this=exp.cast(term, EXACT.copy())))


def _divide(numerator: exp.Expression, denominator: exp.Expression) -> exp.Expression:
    return exp.Div(this=exp.paren(numerator), expression=exp.paren(denominator))


def _nonzero(value: exp.Expression) -> exp.Expression:
    """``NULLIF(value, 0)``: a divisor that turns a division by zero into NULL."""
    return exp.Nullif(this=value, expression=literal(0))


def _columns(attributes: Sequence[str], weight: str | None) -> dict[str, list[exp.Expression]]:
    """The per-attribute select items of the template's four lists (see its header); with a
    ``weight`` column each row counts its weight (n, the sums of x and of squared
    deviations all weighted)."""
    scales: list[exp.Expression] = []
    firsts: list[exp.Expression] = []
    deviations: list[exp.Expression] = []
    moments: list[exp.Expression] = []
    for i, attribute in enumerate(attributes):
        x = _double(column(attribute, "src"))
        finite = exp.LTE(this=exp.Abs(this=x.copy()), expression=LARGEST.copy())
        largest = exp.Max(this=_case(finite, exp.Abs(this=x.copy())))
        scales.append(
            alias(exp.Coalesce(this=_nonzero(largest), expressions=[literal(1.0)]), f"wml_u_{i}")
        )

        scale = column(f"wml_u_{i}", "u")
        w = None if weight is None else column(weight, "src")
        count = (
            exp.Count(this=column(attribute, "src"))
            if w is None
            else _exact_sum(_case(exp.Not(this=exp.Is(this=x.copy(), expression=exp.null())), w))
        )
        present = exp.Not(this=exp.Is(this=x.copy(), expression=exp.null()))
        bad = exp.Sum(
            this=exp.case()
            .when(exp.and_(present, exp.Not(this=finite.copy())), literal(1))
            .else_(literal(0))
        )
        scaled_sum = _exact_sum(_case(finite, _weighted(w, _divide(x, scale))))
        exact_mean = exp.Mul(
            this=_divide(scaled_sum, _nonzero(count.copy())), expression=exp.Max(this=scale)
        )
        plain = exp.GT(this=bad.copy(), expression=literal(0))
        highest = exp.Max(this=_case(finite, x.copy()))
        lowest = exp.Min(this=_case(finite, x))
        firsts += [
            alias(count, f"n_{i}"),
            alias(bad, f"wml_bad_{i}"),
            alias(exp.case().when(plain, exp.Avg(this=x.copy())).else_(exact_mean), f"mean_{i}"),
            alias(exp.VariancePop(this=x.copy()), f"wml_vp_{i}"),
            alias(_nonzero(exp.Sub(this=highest, expression=lowest)), f"wml_v_{i}"),
            alias(highest.copy(), f"wml_hi_{i}"),
            alias(lowest.copy(), f"wml_lo_{i}"),
        ]

        spread = column(f"wml_v_{i}", "f")
        deviation = _divide(exp.Sub(this=x.copy(), expression=column(f"mean_{i}", "f")), spread)
        usable = exp.and_(
            exp.EQ(this=column(f"wml_bad_{i}", "f"), expression=literal(0)), finite.copy()
        )
        squared = exp.Mul(this=deviation, expression=deviation.copy())
        deviations.append(alias(_exact_sum(_case(usable, _weighted(w, squared))), f"wml_q_{i}"))

        n = column(f"n_{i}", "f")
        mean_square = _divide(column(f"wml_q_{i}", "q"), _nonzero(n.copy()))
        exact_variance = exp.Mul(
            this=exp.Mul(this=mean_square, expression=spread.copy()), expression=spread.copy()
        )
        variance = (
            exp.case()
            .when(
                exp.GT(this=column(f"wml_bad_{i}", "f"), expression=literal(0)),
                column(f"wml_vp_{i}", "f"),
            )
            .when(exp.EQ(this=n.copy(), expression=literal(0)), exp.null())
            .when(exp.Is(this=spread.copy(), expression=exp.null()), literal(0.0))
            .else_(exact_variance)
        )
        moments += [
            alias(n, f"n_{i}"),
            alias(column(f"mean_{i}", "f"), f"mean_{i}"),
            alias(variance, f"var_{i}"),
            alias(_extreme(i), f"extreme_{i}"),
        ]
    return {"scales": scales, "firsts": firsts, "deviations": deviations, "moments": moments}


def _weighted(weight: exp.Expression | None, term: exp.Expression) -> exp.Expression:
    """``weight * (term)``, or ``term`` itself unweighted."""
    if weight is None:
        return term
    return exp.Mul(this=weight.copy(), expression=exp.paren(term))


def _extreme(i: int) -> exp.Expression:
    """Attribute i's value farthest from its class mean (the largest on a tie), from the first
    moments f: ``CASE WHEN hi - mean >= mean - lo THEN hi ELSE lo END``."""
    mean = column(f"mean_{i}", "f")
    highest, lowest = column(f"wml_hi_{i}", "f"), column(f"wml_lo_{i}", "f")
    above = exp.Sub(this=highest.copy(), expression=mean.copy())
    below = exp.Sub(this=mean, expression=lowest.copy())
    return exp.case().when(exp.GTE(this=above, expression=below), highest).else_(lowest)


def class_moments(
    source: exp.Table | exp.Query,
    target: str,
    attributes: Sequence[str],
    partition: str | None,
    weight: str | None = None,
) -> exp.Query:
    """Wide per-class moments: class_label, wml_part, n_<i>, mean_<i>, var_<i> per attribute
    (warehouse_ml/sql/stats/select_exact_class_moments.sql); with ``weight``, weighted."""
    parts, groups = partition_items(partition, "src")
    output = [alias(column(PARTITION, "f"), PARTITION)]
    same_u, same, same_q = exp.true(), exp.true(), exp.true()
    if partition is not None:
        same_u = exp.EQ(this=column(PARTITION, "u"), expression=column(partition, "src"))
        same = exp.EQ(this=column(PARTITION, "f"), expression=column(partition, "src"))
        same_q = exp.EQ(this=column(PARTITION, "q"), expression=column(PARTITION, "f"))
    return templates.build(
        "select_exact_class_moments",
        source=source,
        target=target,
        partition_columns=parts,
        partition_group=groups,
        same_partition_u=same_u,
        same_partition=same,
        same_partition_q=same_q,
        partition_output=output,
        **_columns(attributes, weight),
    )


def numeric_moments(
    source: exp.Table | exp.Query,
    target: str,
    attributes: Sequence[str],
    partition: str | None = None,
    weight: str | None = None,
) -> exp.Query:
    """Query of (attribute, class_label, n, mean, variance) for every numeric attribute.

    Output columns: wml_part, attribute (VARCHAR), class_label (VARCHAR), n (BIGINT non-NULL
    rows), mean (DOUBLE), variance (DOUBLE, population; NULL when n = 0), extreme (DOUBLE: the
    class's value farthest from its mean, the largest on a tie; see
    :func:`without_extremes`). Two scans of the
    numeric columns (plus one for their per-class scales); with ``partition``, moments per partition
    value (column ``wml_part``; else 0). Identical on every run and thread count (module docstring).
    With ``weight`` (a source column of row weights, stats/weights.py), n is the summed weight
    (DOUBLE) and the mean and variance are weighted: sum(w x) / sum(w), sum(w (x - mean)^2) /
    sum(w), as scikit-learn's GaussianNB with sample_weight.
    """
    wide = class_moments(source, target, attributes, partition, weight)
    wide_part = [alias(column(PARTITION, "w"), PARTITION)]
    query = templates.union_all(
        templates.build(
            "moments_of_attribute",
            moments=templates.TableName(("wml_moments",)),
            attribute=attribute,
            n_column=f"n_{i}",
            mean_column=f"mean_{i}",
            variance_column=f"var_{i}",
            extreme_column=f"extreme_{i}",
            partition_columns=wide_part,
            count_type=count_type(weight),
        )
        for i, attribute in enumerate(attributes)
    )
    return query.with_("wml_moments", as_=wide, copy=False)


def without_extremes(
    source: exp.Table, target: str, attributes: Sequence[str], moments: TableName
) -> exp.Query:
    """The target and the numeric ``attributes`` of ``source``, each attribute NULL where it
    holds its class's extreme value (column ``extreme`` of ``moments``, a numeric_moments
    table of the same rows; warehouse_ml/sql/stats/select_without_extremes.sql). Their
    numeric_moments are, for a class with one row holding that value, the exact moments of the class
    without that row, which leave-one-out needs for it (loo.py): downdating the full moments by a
    value that dominates them cancels every significant digit."""
    picked = [
        alias(
            exp.Max(
                this=_case(
                    exp.EQ(this=column("attribute", "m"), expression=literal(attribute)),
                    column("extreme", "m"),
                )
            ),
            f"wml_e_{i}",
        )
        for i, attribute in enumerate(attributes)
    ]
    kept = [
        alias(
            exp.case()
            .when(
                exp.EQ(
                    this=_double(column(attribute, "src")), expression=column(f"wml_e_{i}", "e")
                ),
                exp.null(),
            )
            .else_(column(attribute, "src")),
            attribute,
        )
        for i, attribute in enumerate(attributes)
    ]
    return templates.build(
        "select_without_extremes",
        source=source,
        target=target,
        moments=moments,
        extremes=picked,
        attributes=kept,
    )
