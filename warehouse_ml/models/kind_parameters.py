"""How a kind's constructor parameters are declared (models/kinds.py registers them): each
:class:`Parameter`'s name, default, one-line help, :class:`ValueType` (the text the command
line writes its value as, ``--param NAME=VALUE``) and :class:`Constraint` (what the
constructor takes: ``integer_at_least(1)``, ``NON_NEGATIVE``, ``one_of(...)``, ...), the one
declaration the constructors' checks (models/learners/shared/parameters.py) and ``--help``
read. Nothing here imports a learner, DuckDB, Arrow, sqlglot or numpy."""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from warehouse_ml.errors import ParameterError


def _columns(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise ValueError(f"expected comma-separated column names, got {text!r}")
    return names


def _class_weight(text: str) -> str | dict[str, float]:
    if text == "balanced":
        return text
    try:
        mapping = json.loads(text)
    except json.JSONDecodeError:
        mapping = None
    if not isinstance(mapping, dict):
        raise ValueError(
            f"expected 'balanced' or a JSON object such as '{{\"yes\": 5}}', got {text!r}"
        )
    return mapping


@dataclass(frozen=True)
class ValueType:
    """How a parameter's value is written on the command line: ``name`` (shown in help) and
    ``parse``, text to value, raising ValueError with "expected X, got Y"."""

    name: str
    parse: Callable[[str], Any]


def _optional_int(text: str) -> int | None:
    return None if text.lower() == "none" else int(text)


def _optional_float(text: str) -> float | None:
    return None if text.lower() == "none" else float(text)


def _optional_text(text: str) -> str | None:
    return None if text.lower() == "none" else text


def _shrinkage(text: str) -> float | str | None:
    return "auto" if text.lower() == "auto" else _optional_float(text)


def _priors(text: str) -> list[Any] | dict[str, Any]:
    try:
        priors = json.loads(text)
    except json.JSONDecodeError:
        priors = None
    if not isinstance(priors, (list, dict)):
        raise ValueError(
            f"expected a JSON list in class order or object such as '{{\"yes\": 0.2}}', got "
            f"{text!r}"
        )
    return priors


FLOAT = ValueType("float", float)
INT = ValueType("int", int)
TEXT = ValueType("text", str)
COLUMNS = ValueType("columns", _columns)
CLASS_WEIGHT = ValueType("balanced|JSON", _class_weight)
OPTIONAL_INT = ValueType("int|none", _optional_int)
OPTIONAL_TEXT = ValueType("text|none", _optional_text)
SHRINKAGE = ValueType("float|auto|none", _shrinkage)
PRIORS = ValueType("JSON list|object", _priors)


@dataclass(frozen=True)
class Constraint:
    """What a constructor takes for a parameter: ``expected`` (what the error says the value
    must be), ``holds`` (whether a value is acceptable) and ``convert`` (the value the model
    keeps, e.g. a float of an int)."""

    expected: str
    holds: Callable[[Any], bool]
    convert: Callable[[Any], Any] = lambda value: value


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _is_integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def integer_at_least(least: int) -> Constraint:
    """An integer >= ``least`` (not a bool)."""
    return Constraint(f"an integer >= {least}", lambda v: _is_integer(v) and v >= least)


def number_within(low: float, high: float, *, low_open: bool, high_open: bool) -> Constraint:
    """A number in the interval from ``low`` to ``high`` (open at an end so marked), kept as a
    float."""
    interval = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"

    def holds(value: Any) -> bool:
        if not _is_number(value):
            return False
        above = value > low if low_open else value >= low
        below = value < high if high_open else value <= high
        return above and below

    return Constraint(f"within {interval}", holds, float)


def one_of(*choices: Any) -> Constraint:
    """One of ``choices`` (compared with ``==``)."""
    return Constraint(f"one of {', '.join(map(repr, choices))}", lambda v: v in choices)


def or_none(constraint: Constraint) -> Constraint:
    """``constraint``, or None."""
    return Constraint(
        f"{constraint.expected} or None",
        lambda v: v is None or constraint.holds(v),
        lambda v: None if v is None else constraint.convert(v),
    )


NON_NEGATIVE = Constraint(
    "a finite number >= 0", lambda v: _is_number(v) and 0 <= v < math.inf, float
)
POSITIVE = Constraint("a finite number > 0", lambda v: _is_number(v) and 0 < v < math.inf, float)
AT_LEAST_ONE = Constraint(
    "a finite number >= 1", lambda v: _is_number(v) and 1 <= v < math.inf, float
)
COLUMN_NAME = Constraint("a column name or None", lambda v: v is None or isinstance(v, str))
ATTRIBUTE_NAME = Constraint("an attribute name or None", lambda v: v is None or isinstance(v, str))


@dataclass(frozen=True)
class Parameter:
    """One keyword argument of a kind's constructor: its ``name``, how the command line writes
    it (``type``), its ``default``, a one-line ``help`` and the ``constraint`` the constructor
    holds its value to (None: the constructor checks it itself, e.g. a mapping of classes)."""

    name: str
    type: ValueType
    default: Any
    help: str
    constraint: Constraint | None = None

    def parse(self, text: str) -> Any:
        """The value ``text`` stands for; ValueError naming the parameter otherwise."""
        try:
            return self.type.parse(text)
        except ValueError:
            raise ValueError(f"{self.name}: expected a {self.type.name}, got {text!r}") from None

    @property
    def description(self) -> str:
        """The help with what the value must be, as ``--help`` shows it."""
        return self.help if self.constraint is None else f"{self.help}: {self.constraint.expected}"

    def check(self, value: Any) -> Any:
        """The value a model keeps for ``value`` (:attr:`constraint`'s conversion); a
        ParameterError saying what it must be otherwise."""
        if self.constraint is None:
            return value
        if not self.constraint.holds(value):
            raise ParameterError(f"{self.name} must be {self.constraint.expected}, got {value!r}")
        return self.constraint.convert(value)
