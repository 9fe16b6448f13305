"""Integer columns nobody declared: codes or counts?

An integer column is a code (a category: a product class, a rating, a flag) or a count or
measure (an age, an amount, a weight). The rule, applied by every call that chooses a model's
features (``fit``, cross-validation, leave-one-out, ``select_model``, the CLI) before any heavy
statement: an integer-valued column (an integer type, or a decimal of scale 0 such as
``HUGEINT``) that ``categorical=`` / ``numeric=`` do not name is

* **categorical** when it has at most :data:`MAX_INTEGER_CATEGORIES` distinct non-NULL values in
  the source;
* **numeric** otherwise (a Gaussian per class in Naive Bayes, equal-frequency bins in TAN), with
  one :class:`~warehouse_ml.errors.IntegerColumnsWarning` naming those columns, their numbers
  of distinct values, the ``numeric=[...]`` that declares them so without the warning and the
  ``categorical=[...]`` that keeps them categorical (with ``allow_high_cardinality=True`` for
  the columns whose values are too many for a category: each way, followed literally, fits).

The columns are decided over the whole source in at most two statements: the range of each
such column (``MIN(x)``, ``MAX(x)``: a column spanning at most 32 integers has at most 32
values, a code, decided without counting them), read by the statement that profiles every
candidate feature (stats/column_profile.py, which also leaves out a column without values),
then ``COUNT(DISTINCT x)`` of the columns with a wider range only. Counting distinct values
costs a hash table per column: 2.4 s over 5M rows x 20 integer codes, where their ranges take
0.07 s (bench/nb.py's data). A cross-validation decides once for all its folds, so every fold
models a column the same way. The same ranges query gives Naive Bayes the bounds it packs a
block of codes by when counting (:func:`code_ranges`, stats/counting.py). On UCI ``adult``:
age, fnlwgt, capital-gain, capital-loss and hours-per-week become numeric, education-num (16
values) stays categorical.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import IntegerColumnsWarning, SourceError, warn_user
from warehouse_ml.sqlgen.templates import alias, column
from warehouse_ml.stats import column_profile, validation
from warehouse_ml.stats.column_profile import Profile
from warehouse_ml.stats.features import (
    CATEGORICAL,
    NUMERIC,
    Feature,
    column_names,
    integer_valued,
    select_features,
)

MAX_INTEGER_CATEGORIES = 32
"""An undeclared integer column with more distinct non-NULL values than this is numeric."""


def undeclared_integers(features: Sequence[Feature], declared: Iterable[str]) -> list[str]:
    """The categorical integer-valued features whose kind the caller did not declare."""
    named = set(declared)
    return [
        f.name
        for f in features
        if f.kind == CATEGORICAL and integer_valued(f.sql_type) and f.name not in named
    ]


def ranges_query(source: Source, names: Sequence[str]) -> exp.Query:
    """One row: ``wml_min_<i>``, ``wml_max_<i>`` (the column's type) the smallest and largest
    non-NULL value of ``names[i]``."""
    return exp.select(*column_profile.range_items(names)).from_(source.relation.copy().as_("src"))


def code_ranges(
    warehouse: Warehouse, source: Source, names: Sequence[str]
) -> dict[str, tuple[int, int]]:
    """The smallest and largest value of each integer column of ``names`` in ``source`` (one
    statement; none without names): the ranges counting.categorical_counts packs a block's
    codes by. A column without a non-NULL value is left out."""
    if not names:
        return {}
    row = warehouse.fetch_tree(ranges_query(source, names)).to_pylist()[0]
    return {
        name: (int(row[f"wml_min_{i}"]), int(row[f"wml_max_{i}"]))
        for i, name in enumerate(names)
        if row[f"wml_min_{i}"] is not None
    }


def check_code_ranges(
    warehouse: Warehouse, source: Source, ranges: Mapping[str, tuple[int, int]]
) -> None:
    """Refuse (SourceError, naming the column) a source whose columns of ``ranges``
    (:func:`code_ranges`, read before counting it) now hold a value outside them: rows were
    written to it while it was counted, and counts packed by those ranges could have taken
    such a value for another."""
    now = code_ranges(warehouse, source, list(ranges))
    for name, (low, high) in ranges.items():
        found = now.get(name, (low, high))
        if found[0] < low or found[1] > high:
            raise SourceError(
                f"column {name!r} of {source.description} held values from {low} to {high} "
                f"when the fit began, and from {found[0]} to {found[1]} after counting them; "
                "expected a source nobody writes to during the fit: fit again once its "
                "writers are done, or fit from a snapshot of it"
            )


def distinct_counts_query(source: Source, names: Sequence[str]) -> exp.Query:
    """One row: ``wml_n_<i>`` (BIGINT) the number of distinct non-NULL values of ``names[i]``."""
    return exp.select(
        *[
            alias(exp.Count(this=exp.Distinct(expressions=[column(name, "src")])), f"wml_n_{i}")
            for i, name in enumerate(names)
        ]
    ).from_(source.relation.copy().as_("src"))


def decide(features: Sequence[Feature], distinct: Mapping[str, int]) -> list[Feature]:
    """``features`` with each column of ``distinct`` (name -> distinct values) that has more
    than :data:`MAX_INTEGER_CATEGORIES` values made numeric."""
    return [
        Feature(f.name, NUMERIC, f.sql_type)
        if distinct.get(f.name, 0) > MAX_INTEGER_CATEGORIES
        else f
        for f in features
    ]


def _warning(source: Source, made_numeric: Mapping[str, int], labelled: int) -> str:
    """The warning's text: the columns, and the two ways to silence it that a fit then takes
    (``numeric=``, or ``categorical=`` with ``allow_high_cardinality=True`` for the columns
    whose values the high-cardinality check would refuse as categories: stats/validation.py,
    on ``labelled`` rows with a class; the source's distinct values are at least its labelled
    rows', so a column said to pass does)."""
    listed = ", ".join(f"{name!r} ({n} distinct values)" for name, n in made_numeric.items())
    names = ", ".join(repr(name) for name in made_numeric)
    text = (
        f"integer columns {listed} of {source.description} are modelled as numeric, having "
        f"more than {MAX_INTEGER_CATEGORIES} distinct values: numeric=[{names}] declares them "
        f"so, without this warning; categorical=[{names}] counts their values as categories "
        "instead"
    )
    refused = [n for n, c in made_numeric.items() if validation.refused_as_category(c, labelled)]
    if refused:
        many = ", ".join(repr(name) for name in refused)
        text += (
            f", with allow_high_cardinality=True for {many} (too many values for a category "
            f"in {labelled} rows with a class, which a fit refuses otherwise)"
        )
    return text


def apply_integer_rule(
    warehouse: Warehouse, source: Source, features: Sequence[Feature], found: Profile
) -> list[Feature]:
    """``features`` with the rule of this module applied to the undeclared integer columns
    whose ranges the profile ``found`` holds (stats/column_profile.py; None without a value):
    the distinct values of those spanning more than :data:`MAX_INTEGER_CATEGORIES` integers
    are counted (no statement when there is no such column)."""
    wide = [
        name
        for name, bounds in found.ranges.items()
        if bounds is not None and bounds[1] - bounds[0] >= MAX_INTEGER_CATEGORIES
    ]
    if not wide:  # every column spans at most MAX_INTEGER_CATEGORIES integers: codes
        return list(features)
    row = warehouse.fetch_tree(distinct_counts_query(source, wide)).to_pylist()[0]
    distinct = {name: row[f"wml_n_{i}"] for i, name in enumerate(wide)}
    made_numeric = {n: c for n, c in distinct.items() if c > MAX_INTEGER_CATEGORIES}
    if made_numeric:
        warn_user(_warning(source, made_numeric, found.labelled), IntegerColumnsWarning)
    return decide(features, distinct)


def choose_features(
    warehouse: Warehouse,
    source: Source,
    target: str,
    features: str | Sequence[str] | None = None,
    *,
    categorical: str | Iterable[str] | None = None,
    numeric: str | Iterable[str] | None = None,
    keys: str | Iterable[str] | None = None,
) -> list[Feature]:
    """A model's features: :func:`~warehouse_ml.stats.features.select_features` (the type rule,
    the declarations, the target checked), then one statement profiling them
    (stats/column_profile.py): the columns without a value are left out (or refused when
    ``features`` names them), and the integer rule decides what is left undeclared."""
    categorical = column_names(categorical, "categorical")
    numeric = column_names(numeric, "numeric")
    chosen = select_features(
        source, target, features, categorical=categorical, numeric=numeric, keys=keys
    )
    integers = undeclared_integers(chosen, [*categorical, *numeric])
    found = column_profile.profile(warehouse, source, target, chosen, integers)
    listed = [] if features is None else column_names(features, "features")
    kept = column_profile.with_values(source, chosen, found, listed)
    return apply_integer_rule(warehouse, source, kept, found)  # a column without value: no range


def as_declared(features: Sequence[Feature]) -> dict[str, list[str]]:
    """The ``features`` / ``categorical`` / ``numeric`` arguments that choose exactly
    ``features`` again with nothing left to decide (no statement, no warning): what each fold of
    a cross-validation and the refit of a model selection are given."""
    return {
        "features": [f.name for f in features],
        "categorical": [f.name for f in features if f.kind == CATEGORICAL],
        "numeric": [f.name for f in features if f.kind == NUMERIC],
    }
