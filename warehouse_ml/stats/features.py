"""Which columns a model uses, and how each is modelled.

The rule, applied at fit and stored with the model:

* floating-point columns and decimals with a fractional part (scale > 0) are **numeric** (a
  Gaussian per class in Naive Bayes, equal-frequency bins in TAN);
* strings, integers, booleans, dictionary/ENUM, dates, times and timestamps are **categorical**
  here; integer-valued decimals (scale 0: ``DECIMAL(p, 0)``, and DuckDB's ``HUGEINT``/
  ``UHUGEINT``, which Arrow shows as ``decimal128(38, 0)``) are integers; an undeclared integer
  column with many distinct values is then made numeric by stats/integer_rule.py;
* ``categorical=[...]`` and ``numeric=[...]`` override the rule per column (``numeric`` accepts
  integer, floating and decimal columns only);
* nested, binary and other types are refused with a hint.

A target holds class labels: a categorical type, integer-valued decimals included (their labels
are Python ints in ``classes_`` and in the catalog).

A categorical value is counted, stored and compared at scoring through its text
(``CAST(x AS VARCHAR)``), with three refinements (:func:`value_expression`, used by counting,
scoring and TAN alike):

* a floating-point value (categorical or numeric) has its zero made positive
  (warehouse_ml/sql/stats/positive_zero.sql): -0.0 is the number 0.0, whose text is '0.0', not
  '-0.0', and which a tree's exact thresholds count as one value;
* a timestamp with a time zone (DuckDB ``TIMESTAMPTZ``, PostgreSQL ``timestamptz``, Spark
  ``TIMESTAMP``) is the UTC wall-clock time ``x AT TIME ZONE 'UTC'`` (on Spark, computed from
  its epoch microseconds, see dialects.py): its own text depends on the session's time zone,
  so a model fitted in one session would find no stored value in another;
* integers that fit BIGINT (every integer type but uint64, decimals excluded) are compared with
  the stored values cast back to BIGINT (lookup.integer_coded), not through their text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.types as pt
from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ColumnError, ParameterError
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column

CATEGORICAL = "categorical"
NUMERIC = "numeric"
INTEGER_TYPES = ("int", "uint")
"""Prefixes of the Arrow type names of integer columns (int8 ... uint64); those whose values
fit BIGINT are compared and joined as integers when scoring (lookup.integer_coded)."""


@dataclass(frozen=True)
class Feature:
    """One attribute of a model: column name, how it is modelled, its Arrow type (as text)."""

    name: str
    kind: str
    sql_type: str

    def to_json(self) -> dict[str, str]:
        """The catalog form."""
        return {"kind": self.kind, "sql_type": self.sql_type}


def _is_integer_type(t: pa.DataType) -> bool:
    """Integers, and decimals without a fractional part (HUGEINT is decimal128(38, 0))."""
    return pt.is_integer(t) or (pt.is_decimal(t) and t.scale == 0)


def is_numeric_type(t: pa.DataType) -> bool:
    return pt.is_floating(t) or (pt.is_decimal(t) and t.scale != 0)


def is_number_type(t: pa.DataType) -> bool:
    """Integers, floating point and decimals: the types that hold numbers."""
    return is_numeric_type(t) or _is_integer_type(t)


def is_categorical_type(t: pa.DataType) -> bool:
    return (
        pt.is_string(t) or pt.is_large_string(t) or _is_integer_type(t) or pt.is_boolean(t)
        or pt.is_dictionary(t) or pt.is_date(t) or pt.is_time(t) or pt.is_timestamp(t)
        or pt.is_string_view(t)
    )  # fmt: skip


_INTEGER_DECIMAL = re.compile(r"decimal(128|256)\(\d+, 0\)")


def integer_valued(sql_type: str) -> bool:
    """Whether a type, as its Arrow text, holds integers: an integer type or a decimal of scale
    0 (e.g. HUGEINT's decimal128(38, 0))."""
    return sql_type.startswith(INTEGER_TYPES) or _INTEGER_DECIMAL.fullmatch(sql_type) is not None


def zoned(sql_type: str) -> bool:
    """Whether a fitted column's type (its Arrow type as text) is a timestamp with a time zone."""
    return sql_type.startswith("timestamp[") and ", tz=" in sql_type


_INTEGER = re.compile(r"(u?)int(8|16|32|64)|decimal(?:128|256)\(\d+, 0\)")
_BIGINT = (-(2**63), 2**63 - 1)

_SAME_TEXT = (("string", "large_string", "string_view"),)
"""Families of types whose every value is the same text in each (string types)."""


def _integer_range(sql_type: str) -> tuple[int, int] | None:
    """The smallest and largest value of an integer type (its Arrow type as text: int8 ...
    uint64, or an integer-valued decimal, taken as wider than any of those), None for
    another type."""
    match = _INTEGER.fullmatch(sql_type)
    if match is None:
        return None
    unsigned, bits = match.groups()
    if bits is None:
        return -(10**38), 10**38  # decimal(p, 0): wider than any integer type
    if unsigned:
        return 0, 2 ** int(bits) - 1
    return -(2 ** (int(bits) - 1)), 2 ** (int(bits) - 1) - 1


def counted_alike(fitted: str, kind: str, found: pa.DataType) -> bool:
    """Whether a column of type ``found`` has its values counted as a model counted its
    column of type ``fitted`` (the Arrow type as text) and ``kind``, so that an update may add
    them to the stored counts. Yes for: the fitted type itself; an all-NULL column; any number
    type for a numeric attribute (counted as DOUBLE); another string type for a string type;
    an integer type for an integer type, when the values are compared as BIGINT (every
    integer type but uint64, see the module docstring) only if every value fits BIGINT (no
    uint64 batch for an int64 model); a zoned timestamp of the same unit in another time zone
    (counted in UTC). No for anything else: a categorical value is counted as its text, and a
    boolean for an integer ('true', not '1'), a timestamp for a date ('2024-01-31 00:00:00',
    not '2024-01-31') or a double for an integer would be other values."""
    now = str(found)
    if now == fitted or pt.is_null(found):
        return True
    if kind == NUMERIC:
        return is_number_type(found)
    held = _integer_range(now)
    if held is not None and _integer_range(fitted) is not None:
        if fitted.startswith(INTEGER_TYPES) and fitted != "uint64":
            return _BIGINT[0] <= held[0] and held[1] <= _BIGINT[1]
        return True
    if zoned(fitted) and zoned(now):
        return fitted.split(",")[0] == now.split(",")[0]
    return any(fitted in family and now in family for family in _SAME_TEXT)


FLOATING_TYPES = ("halffloat", "float", "double")
"""The Arrow type names (as text) of floating-point columns, whose zero has a sign."""


def value_expression(feature: Feature, value: exp.Expression) -> exp.Expression:
    """A feature's value as counted, stored (as text) and compared when scoring: ``value`` (the
    feature's column) itself; for a floating-point column, the value with its zero made
    positive (warehouse_ml/sql/stats/positive_zero.sql); for a timestamp with a time zone, its UTC
    wall-clock time (warehouse_ml/sql/stats/utc_timestamp.sql; see the module docstring)."""
    if feature.sql_type in FLOATING_TYPES:
        return templates.expression("positive_zero", value=value)
    if feature.kind == CATEGORICAL and zoned(feature.sql_type):
        return templates.expression("utc_timestamp", value=value)
    return value


def compared_text(value: exp.Expression, source_type: pa.DataType) -> exp.Expression:
    """A feature's value (``value``, from :func:`value_expression` or a bin index) as the text
    it is compared as with the stored values: ``CAST(value AS VARCHAR)``, or ``value`` itself
    when it is the source column and the source holds it as text (``source_type``), where the
    cast changes nothing but what an engine spends planning the query."""
    textual = pt.is_string(source_type) or pt.is_large_string(source_type)
    if isinstance(value, exp.Column) and (textual or pt.is_string_view(source_type)):
        return value
    return expressions.as_text(value)


ValueOf = Callable[[Feature, exp.Expression], exp.Expression]
"""How a feature's value is computed from its column (:func:`value_expression`, or binning's
bin index for a discretised numeric feature)."""


def valued_source(
    source: exp.Table | exp.Query,
    passed: Sequence[str],
    features: Sequence[Feature],
    value_of: ValueOf = value_expression,
) -> exp.Table | exp.Query:
    """The relation counting reads: ``source`` with each feature's column replaced by its value
    (``value_of``, same column name) and the ``passed`` columns (target, fold) as they are.

    Returns ``source`` itself when every feature's value is its column (the usual case: the
    counting SQL is then unchanged); otherwise a query of the passed columns and the features.
    """
    values = [value_of(f, column(f.name, "src")) for f in features]
    if all(isinstance(v, exp.Column) for v in values):
        return source
    items = [alias(column(name, "src"), name) for name in passed]
    items += [alias(v, f.name) for f, v in zip(features, values, strict=True)]
    return exp.select(*items).from_(source.copy().as_("src"))


def _hint(field: pa.Field) -> str:
    """What to do with a column of an unsupported type, by type family."""
    t = field.type
    extension = (field.metadata or {}).get(b"ARROW:extension:name", b"").decode()
    if extension.startswith("geoarrow") or "geo" in str(t):
        return (
            "it holds a geometry: derive a categorical (a region, a grid cell) or numeric columns "
            "(coordinates, area) in a view"
        )
    if pt.is_nested(t):
        return (
            "it holds a nested value: extract the fields or elements you need, or unnest it, "
            "in a view (or CAST it to VARCHAR to use the whole value as a category)"
        )
    if pt.is_binary(t) or pt.is_large_binary(t) or pt.is_fixed_size_binary(t):
        return "it holds binary data (BLOB/BIT): CAST it to VARCHAR or hash it in a view"
    if pt.is_interval(t) or pt.is_duration(t):
        return "it holds an interval: convert it to a number (e.g. epoch seconds) in a view"
    return "CAST it to VARCHAR (categorical) or DOUBLE (numeric) in a view"


def _unsupported(source: Source, name: str, t: pa.DataType) -> ColumnError:
    field = source.field(name)
    return ColumnError(
        f"column {name!r} of {source.description} has type {t}, which a classifier cannot use; "
        "expected a string, integer, boolean, enum, date/time or floating/decimal column. "
        f"Hint: {_hint(field)}, or leave it out with features=[...]/keys=[...]"
    )


def column_names(value: str | Iterable[str] | None, argument: str) -> list[str]:
    """The column names an argument (``argument``: its name, for the message) gives: one name
    as a string, or a list of them; None gives none. A string is one column, never the
    characters of one (``keys="id"`` is ``["id"]``)."""
    if value is None:
        return []
    names = [value] if isinstance(value, str) else value
    listed = list(names) if isinstance(names, Iterable) else [names]
    if not all(isinstance(n, str) for n in listed):
        raise ParameterError(
            f"{argument} must be a column name or a list of column names, got {value!r}"
        )
    return listed


def select_features(
    source: Source,
    target: str,
    features: str | Sequence[str] | None = None,
    *,
    categorical: str | Iterable[str] | None = None,
    numeric: str | Iterable[str] | None = None,
    keys: str | Iterable[str] | None = None,
) -> list[Feature]:
    """The model's features, in source column order when ``features`` is None.

    ``features=None`` means every column but the target and the declared ``keys``; each of
    ``features``, ``categorical``, ``numeric`` and ``keys`` is a list of names or one name
    (:func:`column_names`). The target is checked to hold class labels first
    (:func:`check_target`).
    """
    check_target(source, target)
    keys = column_names(keys, "keys")
    categorical = column_names(categorical, "categorical")
    numeric = column_names(numeric, "numeric")
    for name in (*keys, *categorical, *numeric):
        source.field(name)
    both = sorted(set(categorical) & set(numeric))
    if both:
        raise ColumnError(f"columns {both} are declared both categorical and numeric")
    if features is None:
        names = [c for c in source.columns if c != target and c not in keys]
    else:
        names = column_names(features, "features")
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise ColumnError(
                f"features {duplicates} of {source.description} are listed more than once; "
                "expected each feature once"
            )
        if target in names:
            raise ColumnError(
                f"the target column {target!r} of {source.description} is also listed as a "
                "feature; expected features other than the target"
            )
    if not names:
        raise ColumnError(f"no feature columns: {source.description} has only {source.columns}")
    result = []
    for name in names:
        t = source.field(name).type
        if name in numeric:
            if not is_number_type(t):
                raise ColumnError(
                    f"column {name!r} of {source.description} is declared numeric but has type "
                    f"{t}; expected an integer, floating or decimal column"
                )
            kind = NUMERIC
        elif name in categorical:
            if not (is_categorical_type(t) or is_numeric_type(t)):
                raise _unsupported(source, name, t)
            kind = CATEGORICAL
        elif is_numeric_type(t):
            kind = NUMERIC
        elif is_categorical_type(t):
            kind = CATEGORICAL
        else:
            raise _unsupported(source, name, t)
        result.append(Feature(name, kind, str(t)))
    return result


def check_target(source: Source, target: str) -> pa.DataType:
    """The target's Arrow type; it must be categorical-like (integer-valued decimals such as
    HUGEINT included)."""
    t = source.field(target).type
    if not is_categorical_type(t):
        raise ColumnError(
            f"target column {target!r} of {source.description} has type {t}; expected a "
            "string, integer (or integer-valued decimal), boolean, enum or date column holding "
            "class labels"
        )
    return t
