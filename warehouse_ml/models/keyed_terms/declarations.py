"""How a learner declares the parameters of one attribute's term for the planner of
models/keyed_terms/parameters.py: the scored row's values it keys on (:class:`Key`) and its
fallback chain of :class:`Level` (one long-format parameter table each, the last the default),
as a :class:`LogicalTerm`. The planner and its long-format reader (models/keyed_terms/long_terms.py)
both read these declarations, which depend on neither."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlglot import exp

from warehouse_ml.sqlgen import expressions
from warehouse_ml.sqlgen.templates import column, literal


@dataclass(frozen=True)
class Key:
    """A key column of the parameter tables (e.g. ``value``, ``parent_value``, stored as text)
    and the scored row's expression it is compared with: ``operand`` as text, or for integer
    codes (``integer``) the row's integer against the stored text read as BIGINT."""

    column: str
    operand: exp.Expression
    integer: bool = False

    def stored(self, text: str) -> exp.Expression:
        """The literal a stored value is compared as."""
        return literal(int(text)) if self.integer else literal(text)

    def matches(self, relation: str) -> exp.Expression:
        """``relation.<column> = operand`` (the stored side cast to BIGINT for codes)."""
        stored: exp.Expression = column(self.column, relation)
        if self.integer:
            stored = expressions.as_bigint(stored)
        return expressions.equals(stored, self.operand)


@dataclass(frozen=True)
class Level:
    """One step of a fallback chain: the attribute's rows of parameter table ``part``, found by
    the key columns ``keys`` (none for the default), used when the level ``requires`` (the
    ``part`` of another level; None: no condition) found its row too."""

    part: str
    keys: tuple[str, ...] = ()
    requires: str | None = None


@dataclass(frozen=True)
class LogicalTerm:
    """log P(attribute's value | c, ...) of one attribute as a fallback chain over its
    long-format parameter tables (``value_column`` per class); ``keys`` in the order the
    literal CASE nests them, outermost first; NULL ``missing`` gives 0."""

    attribute: str
    missing: exp.Expression
    keys: tuple[Key, ...]
    chain: tuple[Level, ...]
    value_column: str = "log_prob"

    def keyed(self) -> list[Level]:
        """The levels found by key (every one but the default)."""
        return [level for level in self.chain if level.keys]

    def first_found(
        self,
        found: Mapping[str, exp.Expression],
        values: Mapping[str, exp.Expression],
        case: exp.Case,
    ) -> exp.Case:
        """The chain read from joined rows, for one class: ``case`` (its branches first, e.g.
        a NULL value's 0) continued by ``WHEN <a keyed level's row found, and its required
        level's> THEN <its value>`` in chain order, ``ELSE <the default level's value>``;
        ``found`` holds each keyed level's condition, ``values`` each level's value."""
        for level in self.keyed():
            condition = found[level.part].copy()
            if level.requires is not None:
                condition = exp.and_(condition, found[level.requires].copy(), copy=False)
            case.when(condition, values[level.part].copy(), copy=False)
        return case.else_(values[self.chain[-1].part].copy(), copy=False)
