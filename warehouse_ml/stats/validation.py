"""Checks of a model's parameter tables while it is learned, before it is published.

They read only small count tables (one row per attribute and class, or per attribute value),
never the source again, so they cost nothing next to the counting scan; the one exception is
the high-cardinality check of a TAN cross-validation with numeric attributes, which counts the
categorical attributes of all folds once (one scan) before fitting fold by fold. A check that
fails raises inside the fit's staging block: the new tables are dropped and the old model of
that name stays.

* **High cardinality.** A categorical attribute's number of distinct non-NULL training values is
  ``n_values`` in the model's ``unseen`` table (the counting scan has already found them). The
  check is a :class:`CardinalityCheck` made once per fit or cross-validation, as soon as the
  learner knows the distinct values and before its heavy statements: TAN checks before counting
  pairs (a fit) or fold pairs (cross-validation, on the values of all folds together), Naive
  Bayes after its counts (:func:`check_learned`; its counts are its heavy statement).

  - more than :data:`WARN_CATEGORIES` distinct values: :class:`HighCardinalityWarning`;
  - refused with :class:`HighCardinalityError` (unless ``fit(..., allow_high_cardinality=True)``)
    when the attribute has more than :data:`MAX_CATEGORIES` distinct values, or more than
    :data:`WARN_CATEGORIES` distinct values that are also more than
    :data:`IDENTIFIER_FRACTION` of the training rows: most values occur once, as in an
    identifier, so the attribute memorises rows and tells nothing about new ones.

* **Non-finite numbers** (Naive Bayes' Gaussian attributes, the linear families' standardised
  ones): a NaN or ±inf training value makes its class mean non-finite (stats/moments.py keeps
  the plain ``AVG``): :class:`DataError` naming the column (:func:`check_moments`). (TAN refuses
  them while learning bin edges.)
* **Numbers too large to square**: the same moments hold each class's variance, the square of
  its values' spread, which overflows double precision (inf, or NaN when the range itself
  does) when the standard deviation exceeds :data:`LARGEST_DEVIATION` = sqrt(DBL_MAX), about
  1.34e154, although the values are finite: :class:`DataError` naming the column and saying
  to scale it (:func:`check_moments`; the linear design checks its pooled variance alike).
* **Zero variance** (Naive Bayes): the variance floor is ``var_smoothing`` times the largest
  overall variance of the numeric attributes. If a class variance is still 0 (``var_smoothing=0``
  and a column constant within a class, or every numeric column constant overall), the Gaussian
  density is a division by zero: :class:`DataError` naming the column and class.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import (
    DataError,
    HighCardinalityError,
    HighCardinalityWarning,
    ParameterError,
    warn_user,
)
from warehouse_ml.sqlgen.templates import TableName, alias, column, literal
from warehouse_ml.stats.features import CATEGORICAL, Feature
from warehouse_ml.stats.moments import LARGEST
from warehouse_ml.store.ownership import Staging

WARN_CATEGORIES = 1_000
"""A categorical attribute with more distinct training values than this gets a warning."""

MAX_CATEGORIES = 100_000
"""A categorical attribute with more distinct training values than this is refused."""

IDENTIFIER_FRACTION = 0.5
"""Above WARN_CATEGORIES, distinct values above this fraction of the rows are refused."""


def _rows(warehouse: Warehouse, tables: Staging, part: str, order: Sequence[str]) -> list[dict]:
    return warehouse.fetch(
        "select_table", table=tables.named(part), order_columns=[column(c, "t") for c in order]
    ).to_pylist()


class CardinalityCheck:
    """The high-cardinality check (see the module doc) of one fit or cross-validation, made once.

    Created where the fit (or cross-validation) starts and handed to the learner, which calls it
    as soon as it knows each attribute's distinct training values; a later call does nothing,
    so the per-fold fits of a cross-validation do not repeat it.

    Args:
        description: the source, as error messages name it.
        features: the model's features (only categorical ones are checked).
        n_rows: training rows (rows with a non-NULL target).
        allow_high_cardinality: warn instead of refusing.
    """

    def __init__(
        self,
        description: str,
        features: Sequence[Feature],
        n_rows: int,
        *,
        allow_high_cardinality: bool = False,
    ) -> None:
        self.description = description
        self.features = tuple(features)
        self.n_rows = n_rows
        self.allow_high_cardinality = allow_high_cardinality
        self.made = False

    def __call__(self, n_values: Mapping[str, int]) -> None:
        """Warn about or refuse the categorical features given ``n_values`` (attribute ->
        distinct non-NULL training values; an attribute not named has none), unless made
        already."""
        if self.made:
            return
        for feature in self.features:
            if feature.kind == CATEGORICAL:
                _check_attribute(
                    self.description, feature.name, n_values.get(feature.name, 0), self.n_rows,
                    self.allow_high_cardinality,
                )  # fmt: skip
        self.made = True

    def of_counts(self, warehouse: Warehouse, counts: TableName | exp.Query) -> dict[str, int]:
        """Make the check with the distinct values of a count relation (attribute, value, ...;
        e.g. counting.categorical_counts or a categorical table), unless made already.

        Returns:
            attribute -> distinct values in ``counts`` (the query is run even when the check
            was made, as callers plan with it).
        """
        found = warehouse.fetch("select_attribute_cardinalities", counts=counts).to_pylist()
        n_values = {r["attribute"]: int(r["n_values"]) for r in found}
        self(n_values)
        return n_values


def refused_as_category(n_values: int, n_rows: int) -> bool:
    """Whether the check refuses (without ``allow_high_cardinality``) a categorical attribute
    of ``n_values`` distinct values in ``n_rows`` training rows (module docstring)."""
    identifier = n_values > WARN_CATEGORIES and n_values > IDENTIFIER_FRACTION * n_rows
    return n_values > MAX_CATEGORIES or identifier


def _check_attribute(
    description: str, name: str, n_values: int, n_rows: int, allow_high_cardinality: bool
) -> None:
    """Warn about or refuse one categorical attribute with ``n_values`` distinct values."""
    if n_values <= WARN_CATEGORIES:
        return
    what = (
        f"categorical column {name!r} of {description} has {n_values} distinct values in "
        f"{n_rows} training rows"
    )
    if not allow_high_cardinality and refused_as_category(n_values, n_rows):
        expected = (
            f"expected at most {MAX_CATEGORIES} distinct values"
            if n_values > MAX_CATEGORIES
            else f"expected distinct values on at most {IDENTIFIER_FRACTION:.0%} of the rows "
            f"(here {n_values / n_rows:.0%}: most values occur once, like an identifier)"
        )
        raise HighCardinalityError(
            f"{what}; {expected}: leave it out (keys=[{name!r}] or features=[...]), bin or "
            "group it in a view, or pass allow_high_cardinality=True"
        )
    warn_user(
        f"{what}: more than {WARN_CATEGORIES}; its parameters are large and its "
        "estimates weak (bin or group it in a view, or leave it out)",
        HighCardinalityWarning,
    )


LARGEST_DEVIATION = math.sqrt(sys.float_info.max)
"""The largest standard deviation whose square (a variance) is a finite double, about 1.34e154."""


def _finite(value: Any) -> bool:
    return value is not None and math.isfinite(float(value))


def check_moments(description: str, rows: Iterable[Mapping[str, Any]]) -> None:
    """Refuse numeric attributes of ``description`` whose moments are not finite (DataError
    naming the column, see the module doc). ``rows``: ``attribute``, ``class`` (the label, or
    None for the moments over every training row), ``mean`` and ``variance``; a row whose
    mean is NULL (no value) is skipped. A non-finite mean (NaN or ±inf among the values) is
    reported first, naming the class holding it; then a non-finite variance of finite values
    (too large to square)."""
    present = [r for r in rows if r["mean"] is not None]
    for row in present:
        if not _finite(row["mean"]):
            raise DataError(
                f"numeric column {row['attribute']!r} of {description} has non-finite values "
                f"(NaN or ±inf) {_where(row)}: mean {row['mean']}, variance {row['variance']}; "
                "expected finite numbers (filter them out, or map them to NULL, in a view)"
            )
    for row in present:
        if not _finite(row["variance"]):
            raise DataError(
                f"numeric column {row['attribute']!r} of {description} has values too large "
                f"to square in double precision: its variance {_where(row)} is "
                f"{row['variance']} (mean {row['mean']:.6g}); expected a standard deviation "
                f"below {LARGEST_DEVIATION:.3g} (the square root of the largest double): scale "
                "the column (divide it by a power of ten in a view)"
            )


def _where(row: Mapping[str, Any]) -> str:
    return "over every training row" if row["class"] is None else f"in class {row['class']!r}"


def check_gaussian(
    warehouse: Warehouse, description: str, tables: Staging, classes: Sequence[Any]
) -> None:
    """Refuse non-finite or zero Gaussian parameters (see the module doc)."""
    rows = [
        {**r, "class": classes[r["class_index"]]}
        # a class with no non-NULL value of the attribute: the attribute contributes nothing
        for r in _rows(warehouse, tables, "gaussian", ("attribute", "class_index"))
        if r["n"]
    ]
    # a non-finite mean names the class holding the value (a NaN overall variance makes the
    # floor, hence every class's variance, NaN)
    check_moments(description, rows)
    for row in rows:
        name, label = row["attribute"], row["class"]
        if float(row["variance"]) <= 0.0:
            raise DataError(
                f"numeric column {name!r} of {description} has zero variance in class "
                f"{label!r} (every value {row['mean']}) and the variance floor is 0 "
                "(var_smoothing=0, or every numeric column is constant); expected a positive "
                "variance: set var_smoothing > 0 with a non-constant numeric column, leave the "
                "column out, or declare it categorical=[...]"
            )


def check_finite(
    warehouse: Warehouse, source: Source, target: str, attributes: Sequence[str]
) -> None:
    """Refuse (DataError naming the column) NaN or ±inf in the numeric ``attributes`` of
    ``source`` on labelled rows, as a fit refuses them (one scan; none without attributes). An
    update checks its batch with it, as it neither learns bins again nor sees its moments
    before pooling them."""
    if not attributes:
        return
    labelled = exp.Not(this=exp.Is(this=column(target, "src"), expression=exp.null()))
    items = []
    for i, name in enumerate(attributes):
        value = exp.cast(column(name, "src"), exp.DataType.Type.DOUBLE)
        bad = exp.and_(
            labelled.copy(),
            exp.Not(this=exp.Is(this=value, expression=exp.null())),
            exp.Not(this=exp.LTE(this=exp.Abs(this=value.copy()), expression=LARGEST.copy())),
        )
        items.append(
            alias(exp.Sum(this=exp.case().when(bad, literal(1)).else_(literal(0))), f"wml_n_{i}")
        )
    row = warehouse.fetch_tree(
        exp.select(*items).from_(source.relation.copy().as_("src"))
    ).to_pylist()[0]
    for i, name in enumerate(attributes):
        if row[f"wml_n_{i}"]:
            raise DataError(
                f"numeric column {name!r} of {source.description} has {row[f'wml_n_{i}']} "
                "non-finite values (NaN or ±inf) on labelled rows; expected finite numbers "
                "(filter them out, or map them to NULL, in a view)"
            )


def check_learned(
    warehouse: Warehouse, description: str, tables: Staging, classes: Sequence[Any]
) -> None:
    """The checks of a fitted model's parameter tables in ``tables`` that counting cannot make:
    every Gaussian mean and variance finite, and no class variance zero (:func:`check_gaussian`;
    the high-cardinality check is made by the learner, ``CardinalityCheck.of_counts``)."""
    if "gaussian" in tables.roles:
        check_gaussian(warehouse, description, tables, [c.value for c in classes])


def non_negative(name: str, value: float) -> float:
    """A model parameter ``name`` as a finite number >= 0 (a ParameterError otherwise)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{name} must be a number >= 0, got {value!r}") from None
    if not number >= 0 or number == float("inf"):
        raise ParameterError(f"{name} must be a finite number >= 0, got {value!r}")
    return number
