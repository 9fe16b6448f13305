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

    def to_json(self) -> dict[str, Any]:
        """The catalog form (details["weighting"])."""
        return {"sample_weight": self.sample_weight, "class_weights": self.factors}

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
    column ``column_name`` (a name no source column has), after checking the sample-weight
    column: numeric, and finite and >= 0 on every labelled row (DataError naming the column
    and the rows that are not)."""
    if sample_weight is None and class_weight is None:
        return None
    if sample_weight is not None:
        check_sample_weight(warehouse, source, target, sample_weight)
    return Weighting(sample_weight, class_factors(class_weight, classes), column_name)


def check_sample_weight(warehouse: Warehouse, source: Source, target: str, name: str) -> None:
    """Refuse a sample-weight column that is not numeric, or is NULL, negative or not finite
    on a labelled row."""
    field = source.field(name)
    t = field.type
    if not is_number_type(t):
        raise ColumnError(
            f"sample_weight column {name!r} of {source.description} has type {t}; expected a "
            "numeric column of non-negative weights"
        )
    if name == target:
        raise ParameterError(f"sample_weight column {name!r} is the target column")
    value = expressions.as_double(column(name, "src"))
    labelled = exp.Not(this=exp.Is(this=column(target, "src"), expression=exp.null()))

    def rows(condition: exp.Expression) -> exp.Expression:
        return exp.Sum(
            this=exp.case().when(exp.and_(labelled.copy(), condition), literal(1)).else_(literal(0))
        )

    finite = exp.LTE(this=exp.Abs(this=value.copy()), expression=LARGEST.copy())
    query = exp.select(
        alias(rows(exp.Is(this=value.copy(), expression=exp.null())), "n_null"),
        alias(rows(exp.LT(this=value.copy(), expression=literal(0))), "n_negative"),
        alias(
            rows(
                exp.and_(
                    exp.Not(this=exp.Is(this=value.copy(), expression=exp.null())),
                    exp.Not(this=finite),
                )
            ),
            "n_not_finite",
        ),
    ).from_(source.relation.copy().as_("src"))
    found = warehouse.fetch_tree(query).to_pylist()[0]
    bad = {k[2:].replace("_", " "): v for k, v in found.items() if v}
    if bad:
        what = ", ".join(f"{v} {k}" for k, v in bad.items())
        raise DataError(
            f"sample_weight column {name!r} of {source.description} has {what} value(s) on "
            "labelled rows; expected a finite weight >= 0 on every row with a class"
        )
