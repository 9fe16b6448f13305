"""Checks of a freshly learned model's parameter tables, before it is published.

They read only the model's small parameter tables (one row per attribute and class), never the
source again, so they cost nothing next to the counting scan. A check that fails raises inside
the fit's staging block: the new tables are dropped and the old model of that name stays.

* **High cardinality.** A categorical attribute's number of distinct non-NULL training values is
  ``n_values`` in the model's ``unseen`` table (the counting scan has already found them).

  - more than :data:`WARN_CATEGORIES` distinct values: :class:`HighCardinalityWarning`;
  - refused with :class:`HighCardinalityError` (unless ``fit(..., allow_high_cardinality=True)``)
    when the attribute has more than :data:`MAX_CATEGORIES` distinct values, or more than
    :data:`WARN_CATEGORIES` distinct values that are also more than
    :data:`IDENTIFIER_FRACTION` of the training rows: most values occur once, as in an
    identifier, so the attribute memorises rows and tells nothing about new ones.

* **Non-finite numbers** (Naive Bayes, Gaussian attributes): a NaN or ±inf training value makes
  its class mean or variance non-finite: :class:`DataError` naming the column. (TAN refuses them
  while learning bin edges.)
* **Zero variance** (Naive Bayes): the variance floor is ``var_smoothing`` times the largest
  overall variance of the numeric attributes. If a class variance is still 0 (``var_smoothing=0``
  and a column constant within a class, or every numeric column constant overall), the Gaussian
  density is a division by zero: :class:`DataError` naming the column and class.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

from warehouse_ml.errors import DataError, HighCardinalityError, HighCardinalityWarning
from warehouse_ml.features import CATEGORICAL, Feature
from warehouse_ml.ownership import Staging
from warehouse_ml.templates import column
from warehouse_ml.warehouse import Warehouse

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


def check_cardinality(
    warehouse: Warehouse,
    description: str,
    tables: Staging,
    features: Sequence[Feature],
    n_rows: int,
    *,
    allow_high_cardinality: bool = False,
) -> dict[str, int]:
    """Warn about or refuse high-cardinality categorical attributes (see the module doc).

    Returns:
        attribute -> distinct non-NULL training values, for categorical attributes.
    """
    rows = _rows(warehouse, tables, "unseen", ("attribute", "class_index"))
    found = {r["attribute"]: int(r["n_values"]) for r in rows}
    counts = {f.name: found.get(f.name, 0) for f in features if f.kind == CATEGORICAL}
    for name, n_values in counts.items():
        if n_values <= WARN_CATEGORIES:
            continue
        identifier = n_values > IDENTIFIER_FRACTION * n_rows
        what = (
            f"categorical column {name!r} of {description} has {n_values} distinct values in "
            f"{n_rows} training rows"
        )
        if not allow_high_cardinality and (n_values > MAX_CATEGORIES or identifier):
            why = (
                "most values occur once, like an identifier"
                if identifier
                else f"more than {MAX_CATEGORIES}"
            )
            raise HighCardinalityError(
                f"{what} ({why}); expected at most {MAX_CATEGORIES} distinct values and at most "
                f"{IDENTIFIER_FRACTION:.0%} of the rows: leave it out (keys=[{name!r}] or "
                "features=[...]), bin or group it in a view, or pass "
                "allow_high_cardinality=True"
            )
        warnings.warn(
            f"{what}: more than {WARN_CATEGORIES}; its parameters are large and its "
            "estimates weak (bin or group it in a view, or leave it out)",
            HighCardinalityWarning,
            stacklevel=4,
        )
    return counts


def _finite(value: Any) -> bool:
    return value is not None and math.isfinite(float(value))


def check_gaussian(
    warehouse: Warehouse, description: str, tables: Staging, classes: Sequence[Any]
) -> None:
    """Refuse non-finite or zero Gaussian parameters (see the module doc)."""
    rows = [
        r  # a class with no non-NULL value of the attribute: the attribute contributes nothing
        for r in _rows(warehouse, tables, "gaussian", ("attribute", "class_index"))
        if r["n"]
    ]
    # a non-finite mean first: it names the class holding the value (a NaN overall variance
    # makes the floor, hence every class's variance, NaN)
    for row in sorted(rows, key=lambda r: _finite(r["mean"])):
        name, label = row["attribute"], classes[row["class_index"]]
        if not (_finite(row["mean"]) and _finite(row["variance"])):
            raise DataError(
                f"numeric column {name!r} of {description} has non-finite values (NaN or ±inf) "
                f"in class {label!r}: mean {row['mean']}, variance {row['variance']}; expected "
                "finite numbers (filter them out, or map them to NULL, in a view)"
            )
        if float(row["variance"]) <= 0.0:
            raise DataError(
                f"numeric column {name!r} of {description} has zero variance in class "
                f"{label!r} (every value {row['mean']}) and the variance floor is 0 "
                "(var_smoothing=0, or every numeric column is constant); expected a positive "
                "variance: set var_smoothing > 0 with a non-constant numeric column, leave the "
                "column out, or declare it categorical=[...]"
            )


def check_learned(
    warehouse: Warehouse,
    description: str,
    tables: Staging,
    features: Sequence[Feature],
    classes: Sequence[dict[str, Any]],
    *,
    allow_high_cardinality: bool = False,
) -> None:
    """Every check that applies to the parameter tables in ``tables``."""
    n_rows = sum(c["n"] for c in classes)
    if "unseen" in tables.roles:
        check_cardinality(
            warehouse, description, tables, features, n_rows,
            allow_high_cardinality=allow_high_cardinality,
        )  # fmt: skip
    if "gaussian" in tables.roles:
        check_gaussian(warehouse, description, tables, [c["value"] for c in classes])
