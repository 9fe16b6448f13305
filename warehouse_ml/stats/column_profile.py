"""What one statement reads of a model's candidate features before anything is learned, and the
rule for a column without any value.

:func:`profile` is that statement (one row, every feature at once): each feature's non-NULL
values in the source (``COUNT(x)``), the rows with a class (``COUNT(target)``) and, for the
integer columns nobody declared, their smallest and largest value, which the integer rule
(stats/integer_rule.py) decides them by. Plain aggregates, so the statement costs one scan of
the columns it names, whatever their number.

:func:`with_values` applies the rule: a column with no value (every row NULL) cannot be
learned from, so

* a column the features were chosen from (``features=None``: every column but the target and
  the keys; ``"top:k"``'s candidates) is left out, with one
  :class:`~warehouse_ml.errors.AllNullColumnsWarning` naming every such column;
* a column named in ``features=[...]`` is a :class:`~warehouse_ml.errors.DataError` naming it:
  the caller asked for it, and a model silently without it would not be the model asked for;
* a source whose every feature is such a column is a DataError too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import AllNullColumnsWarning, DataError, warn_user
from warehouse_ml.sqlgen.templates import alias, column
from warehouse_ml.stats.features import Feature


@dataclass(frozen=True)
class Profile:
    """One source's profile of some features: ``values`` (name -> non-NULL values, int),
    ``labelled`` (rows with a class) and ``ranges`` (name -> (smallest, largest) value of each
    integer column profiled for the integer rule, None when it has no value)."""

    values: Mapping[str, int]
    labelled: int
    ranges: Mapping[str, tuple[int, int] | None]


def profile(
    warehouse: Warehouse,
    source: Source,
    target: str,
    features: Sequence[Feature],
    integers: Sequence[str],
) -> Profile:
    """The :class:`Profile` of ``features`` in ``source`` (one statement, module docstring),
    with the ranges of the ``integers`` among them."""
    relation = source.relation.copy().as_("src")
    counts = [
        alias(exp.Count(this=column(f.name, "src")), f"wml_n_{i}") for i, f in enumerate(features)
    ]
    labelled = alias(exp.Count(this=column(target, "src")), "wml_labelled")
    query = exp.select(labelled, *counts, *range_items(integers)).from_(relation)
    row = warehouse.fetch_tree(query).to_pylist()[0]
    ranges = {
        name: None
        if row[f"wml_min_{i}"] is None
        else (int(row[f"wml_min_{i}"]), int(row[f"wml_max_{i}"]))
        for i, name in enumerate(integers)
    }
    values = {f.name: int(row[f"wml_n_{i}"]) for i, f in enumerate(features)}
    return Profile(values, int(row["wml_labelled"]), ranges)


def range_items(names: Sequence[str]) -> list[exp.Expression]:
    """``wml_min_<i>``, ``wml_max_<i>``: the smallest and largest non-NULL value of
    ``names[i]`` of the relation ``src``, as select items."""
    return [
        alias(aggregate(this=column(name, "src")), f"wml_{label}_{i}")
        for i, name in enumerate(names)
        for label, aggregate in (("min", exp.Min), ("max", exp.Max))
    ]


def with_values(
    source: Source, features: Sequence[Feature], found: Profile, listed: Sequence[str]
) -> list[Feature]:
    """``features`` without the columns that have no value in ``source`` (module docstring:
    a warning for those the choice found, a DataError for those ``listed`` in
    ``features=[...]``, or when none is left). A source without a labelled row keeps them
    all, for the fit's own error to say so (no rows, or no class)."""
    if found.labelled == 0:
        return list(features)
    empty = [f.name for f in features if found.values[f.name] == 0]
    asked = [name for name in empty if name in listed]
    if asked:
        raise DataError(
            f"features {asked} of {source.description} have no value (every row is NULL); "
            "expected feature columns with values: leave them out of features=[...]"
        )
    kept = [f for f in features if f.name not in empty]
    if not kept:
        raise DataError(
            f"every feature column of {source.description} ({empty}) has no value (every row "
            "is NULL); expected at least one feature column with values"
        )
    if empty:
        warn_user(
            f"columns {empty} of {source.description} have no value (every row is NULL) and "
            f"are left out of the features; features=[...] naming the others says so without "
            "this warning",
            AllNullColumnsWarning,
        )
    return kept
