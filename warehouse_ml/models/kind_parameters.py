"""How a kind's constructor parameters are declared (models/kinds.py registers them): each
:class:`Parameter`'s name, default, one-line help and :class:`ValueType`, the text the command
line writes its value as (``--param NAME=VALUE``). Nothing here imports a learner, DuckDB,
Arrow, sqlglot or numpy."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


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
class Parameter:
    """One keyword argument of a kind's constructor."""

    name: str
    type: ValueType
    default: Any
    help: str

    def parse(self, text: str) -> Any:
        """The value ``text`` stands for; ValueError naming the parameter otherwise."""
        try:
            return self.type.parse(text)
        except ValueError:
            raise ValueError(f"{self.name}: expected a {self.type.name}, got {text!r}") from None
