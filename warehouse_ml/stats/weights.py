"""Row weights of a weighted fit: a sample-weight column times a weight per class.

A weighted fit counts each row as its weight w = sample_weight * class_weight[class]: every
count (classes, attribute values, attribute pairs, so TAN's CMI and tree too) is the exact sum
of the weights (stats/counting.py, DECIMAL(38, 18)), and Gaussian moments are weighted
(stats/moments.py), as scikit-learn's ``CategoricalNB`` and ``GaussianNB`` ``fit(X, y,
sample_weight=w)`` count them. Two things stay unweighted, as there: the values an attribute
takes (|X| of the smoothing, a value seen only with weight 0 included) and the Gaussian
variance floor (``var_smoothing`` times the largest variance of the data itself, not the
weighted one). TAN's numeric bins are equal-frequency bins of the rows, unweighted.

``class_weight="balanced"`` gives class c the weight n / (K n_c) (n labelled rows, K classes,
n_c the class's rows), scikit-learn's ``compute_sample_weight("balanced", y)``; a dict gives
the named classes their weight and the others 1.

The weights a sum can hold exactly (:func:`check_row_weights`, made by fits, updates and the
weighted measures on every row with a class): each row's weight w is 0 or at least
:data:`MIN_WEIGHT` = 1e-9, and the weights sum to less than :data:`MAX_TOTAL_WEIGHT` = 1e12.
A count rounds each weight to 1e-18 (DECIMAL(38, 18)), so a weight of 1e-9 keeps 9
significant digits (one of 1e-19 would count as 0); Gaussian moments add weighted terms
w * x / u with x / u in [-1, 1] as DECIMAL(38, 26), whose 12 integer digits hold sums below
1e12, as they hold 10^12 rows of an unweighted fit (stats/moments.py); every other sum (the
counts' DECIMAL(38, 18), a measure's weighted terms) holds more. Every class needs a positive
total weight (:func:`check_class_totals`): a class whose rows all weigh 0 has no
probability.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ColumnError, DataError, ParameterError
from warehouse_ml.sqlgen import expressions
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import is_number_type
from warehouse_ml.stats.moments import LARGEST

BALANCED = "balanced"
MIN_WEIGHT = 1e-9
"""Smallest positive row weight (module docstring): a count keeps 9 of its digits."""
MAX_TOTAL_WEIGHT = 1e12
"""Bound of the summed weights of a fit or a measure (module docstring)."""


def check_class_weight(class_weight: Any) -> str | dict[str, float] | None:
    """A class_weight setting: None, ``"balanced"``, or a mapping label -> finite weight >= 0
    (keys kept as text, as the catalog stores them)."""
    if class_weight is None or class_weight == BALANCED:
        return class_weight
    if not isinstance(class_weight, Mapping):
        raise ParameterError(
            f"class_weight must be None, 'balanced' or a mapping class -> weight, got "
            f"{class_weight!r}"
        )
    checked = {}
    for label, weight in class_weight.items():
        if isinstance(weight, bool) or not isinstance(weight, (int, float)):
            raise ParameterError(f"class_weight[{label!r}] must be a number, got {weight!r}")
        if not math.isfinite(weight) or weight < 0:
            raise ParameterError(
                f"class_weight[{label!r}] must be a finite number >= 0, got {weight!r}"
            )
        checked[str(label)] = float(weight)
    return checked


def class_factors(
    class_weight: str | dict[str, float] | None, classes: Sequence[Any]
) -> dict[str, float]:
    """Each class's weight (by its label as text) for ``classes`` (ClassCount: label, n_rows)
    under a checked class_weight; a dict naming no class of the data is refused."""
    if class_weight is None:
        return {}
    if class_weight == BALANCED:
        n = sum(c.n_rows for c in classes)
        return {c.label: n / (len(classes) * c.n_rows) for c in classes}
    labels = {c.label for c in classes}
    unknown = sorted(set(class_weight) - labels)
    if unknown:
        raise ParameterError(
            f"class_weight names {unknown}, which are not classes of the target; expected some "
            f"of {sorted(labels)}"
        )
    return dict(class_weight)


@dataclass(frozen=True)
class Weighting:
    """How a weighted fit weighs its rows: the ``sample_weight`` column (or None), each
    class's weight by label (``factors``; empty for none), and the column of the weighted
    source holding each row's weight (``column``)."""

    sample_weight: str | None
    factors: dict[str, float]
    column: str

    def describe(self) -> str:
        """What the weights are, as messages name them."""
        parts = (
            [] if self.sample_weight is None else [f"sample_weight column {self.sample_weight!r}"]
        )
        if self.factors:
            parts.append(f"class_weight {self.factors}")
        return " times ".join(parts)

    def check(self, warehouse: Warehouse, source: Source, target: str) -> None:
        """Refuse the weights of ``source``'s labelled rows where a count would not sum them
        exactly (:func:`check_row_weights`), after checking the sample-weight column's type
        (:func:`check_sample_weight`)."""
        if self.sample_weight is not None:
            check_sample_weight(source, target, self.sample_weight)
        check_row_weights(
            warehouse, source, target, self.weight_expression(target), self.describe()
        )

    def weight_expression(self, target: str) -> exp.Expression:
        """w = sample_weight * class weight, over the source's rows ``src``."""
        parts: list[exp.Expression] = []
        if self.sample_weight is not None:
            parts.append(expressions.as_double(column(self.sample_weight, "src")))
        if self.factors:
            case = exp.case(expressions.as_text(column(target, "src")))
            for label, weight in self.factors.items():
                case = case.when(literal(label), literal(float(weight)))
            parts.append(case.else_(literal(1.0)))
        weight = parts[0]
        for part in parts[1:]:
            weight = exp.Mul(this=weight, expression=part)
        return weight

    def source(self, source: Source, target: str) -> Source:
        """``source`` with the weight column added (a subquery; the name and durability of the
        source are kept for messages and the catalog)."""
        relation = exp.select(exp.Star(), alias(self.weight_expression(target), self.column)).from_(
            source.relation.copy().as_("src")
        )
        return dataclasses.replace(
            source,
            relation=relation.subquery("wml_weighted"),
            schema=source.schema.append(pa.field(self.column, pa.float64())),
        )


def weighting(
    warehouse: Warehouse,
    source: Source,
    target: str,
    sample_weight: str | None,
    class_weight: str | dict[str, float] | None,
    classes: Sequence[Any],
    column_name: str,
) -> Weighting | None:
    """The weighting of a fit of ``source`` (None when unweighted), its weights in the new
    column ``column_name`` (a name no source column has), after checking them
    (:meth:`Weighting.check`). The caller checks the classes' weighted totals
    (:func:`check_class_totals`) once it has counted them."""
    if sample_weight is None and class_weight is None:
        return None
    if sample_weight is not None:
        check_sample_weight(source, target, sample_weight)
    found = Weighting(sample_weight, class_factors(class_weight, classes), column_name)
    found.check(warehouse, source, target)
    return found


def check_sample_weight(source: Source, target: str, name: str) -> None:
    """Refuse a sample-weight column that is not numeric, or is the target."""
    t = source.field(name).type
    if not is_number_type(t):
        raise ColumnError(
            f"sample_weight column {name!r} of {source.description} has type {t}; expected a "
            "numeric column of non-negative weights"
        )
    if name == target:
        raise ParameterError(f"sample_weight column {name!r} is the target column")


def check_row_weights(
    warehouse: Warehouse, source: Source, target: str, weight: exp.Expression, what: str
) -> float:
    """Refuse (DataError naming ``what``, e.g. the weight column, and the range) row weights
    ``weight`` (an expression over ``src``) a sum cannot hold exactly, on the rows of
    ``source`` whose ``target`` is not NULL: NULL, negative or non-finite weights, positive
    ones below :data:`MIN_WEIGHT`, or weights summing to :data:`MAX_TOTAL_WEIGHT` or more
    (module docstring). One scan.

    Returns:
        the summed weights of those rows (0.0 without any).
    """
    value = expressions.as_double(weight)
    labelled = exp.Not(this=exp.Is(this=column(target, "src"), expression=exp.null()))
    known = exp.Not(this=exp.Is(this=value.copy(), expression=exp.null()))
    finite = exp.LTE(this=exp.Abs(this=value.copy()), expression=LARGEST.copy())

    def rows(condition: exp.Expression) -> exp.Expression:
        return exp.Sum(
            this=exp.case().when(exp.and_(labelled.copy(), condition), literal(1)).else_(literal(0))
        )

    usable = exp.and_(
        labelled.copy(), finite.copy(), exp.GTE(this=value.copy(), expression=literal(0))
    )
    query = exp.select(
        alias(rows(exp.Not(this=known.copy())), "n_null"),
        alias(rows(exp.LT(this=value.copy(), expression=literal(0))), "n_negative"),
        alias(rows(exp.and_(known.copy(), exp.Not(this=finite.copy()))), "n_not_finite"),
        alias(
            rows(
                exp.and_(
                    exp.GT(this=value.copy(), expression=literal(0)),
                    exp.LT(this=value.copy(), expression=literal(MIN_WEIGHT)),
                )
            ),
            "n_tiny",
        ),
        alias(exp.Sum(this=exp.case().when(usable, value.copy()).else_(literal(0.0))), "total"),
    ).from_(source.relation.copy().as_("src"))
    found = warehouse.fetch_tree(query).to_pylist()[0]
    total = float(found.pop("total") or 0.0)
    expected = (
        f"expected 0 or a weight of at least {MIN_WEIGHT:g} on every row with a class, summing "
        f"to less than {MAX_TOTAL_WEIGHT:g} (the exact sums of weighted counts hold no more)"
    )
    words = {
        "n_null": "null",
        "n_negative": "negative",
        "n_not_finite": "not finite",
        "n_tiny": f"positive below {MIN_WEIGHT:g}",
    }
    bad = ", ".join(f"{n} {words[k]} value(s)" for k, n in found.items() if n)
    if bad:
        raise DataError(f"{what} of {source.description} has {bad} on labelled rows; {expected}")
    if total >= MAX_TOTAL_WEIGHT:
        raise DataError(
            f"{what} of {source.description}: the weights of its labelled rows sum to "
            f"{total:g}; {expected}"
        )
    return total


def check_weight_column(warehouse: Warehouse, source: Source, target: str, name: str) -> None:
    """Refuse the numeric weight column ``name`` of a weighted measure (``weight=``) where its
    sums would not be exact (:func:`check_row_weights`), or when every row with a class
    weighs 0 (DataError)."""
    what = f"weight column {name!r}"
    if check_row_weights(warehouse, source, target, column(name, "src"), what) == 0.0:
        raise DataError(
            f"{what} of {source.description} is 0 on every row with a class; expected a "
            "positive weight on some row"
        )


def check_class_totals(
    classes: Sequence[Any], description: str, target: str, weighting: Weighting
) -> None:
    """Refuse (DataError naming the classes) classes (ClassCount: label, n) whose total
    weight is 0: every row of theirs weighs 0, and a class without weight has no
    probability."""
    empty = [c.label for c in classes if not c.n > 0]
    if empty:
        raise DataError(
            f"classes {empty} of target column {target!r} of {description} have a total "
            f"weight of 0 (weights: {weighting.describe()}): each of their rows weighs 0; "
            "expected a positive total weight for every class (leave those rows out, or give "
            "them weight)"
        )
