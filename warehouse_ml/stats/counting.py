"""Count queries: how the data is read to learn parameters.

Categorical counts group the class with a *block* of attributes at a time (one scan of those
columns per block) and sum each attribute's marginal out of the block's small joint table, all
in one statement. ``bench/nb.py`` measured this against GROUPING SETS and a UNION ALL of one
GROUP BY per attribute: blocks of 4 were the fastest on integer codes and on strings. A block's
marginals are one GROUP BY over its joint table crossed with its attributes' slots
(``count_values_from_block.sql``), as pair counts are (stats/pairs.py): a GROUP BY per
attribute made DuckDB plan for longer than it counted on small tables (35 attributes: 0.2 s
of planning for 700 rows), and costs the same on large ones.

A block whose columns are integer codes of known ranges (``codes``: the smallest and largest
value of each in the counted rows, stats/integer_rule.code_ranges) is grouped by ONE integer
key instead (``count_packed_block.sql``): each code's offset from its smallest value, a NULL
as one slot more, packed digit by digit (the class too when it is such a code), and decoded
after grouping into the same block table. Grouping one integer costs less than grouping five
columns (DuckDB indexes an array by a key of small range instead of hashing): on bench/nb.py's
5M rows x 20 integer codes, blocks of 4 counted in 0.13 s of CPU instead of 0.23 s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlglot import exp

from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column

DEFAULT_BLOCK_SIZE = 4
MAX_COUNTED_ATTRIBUTES = 128
"""Attributes counted by one statement: DuckDB's planning time grows faster than linearly with
the statement's size (1,000 attributes in one statement: 17 s to plan; in chunks of 128: about
2 s), so a wider model counts its attributes chunk by chunk into a staging table."""
PARTITION = "wml_part"
"""Output name of the partition column of every count and parameter table: the model the row
belongs to (0 for a fitted model; the held-out fold for cross-validation's models)."""


MAX_PACKED_KEY = 2**31 - 1
"""Largest key a block's packed codes may reach: every engine's INTEGER arithmetic holds it
(Spark's wraps around past it without an error)."""
_INTEGER_RANGE = (-(2**31), 2**31 - 1)

CodeRanges = Mapping[str, tuple[int, int]]
"""Columns holding integer codes, each with the smallest and largest value of the rows
counted (both ends included)."""


WEIGHT_SUM_TYPE = exp.DataType.build("DECIMAL(38, 18)")
"""Type a weighted count sums its weights as: an exact, order-free sum (each weight rounded to
1e-18), the same on every run and engine."""


def row_count(weight: str | None, table: str = "src") -> exp.Expression:
    """How rows are counted: ``COUNT(*)``, or the exact sum of the weight column ``weight`` of
    ``table`` (a weighted fit, stats/weights.py)."""
    if weight is None:
        return exp.Count(this=exp.Star())
    return exp.Sum(this=exp.cast(column(weight, table), WEIGHT_SUM_TYPE.copy()))


def count_type(weight: str | None) -> exp.DataType:
    """The type of a count in the parameter tables: BIGINT rows, or DOUBLE summed weights."""
    return exp.DataType.build("BIGINT" if weight is None else "DOUBLE")


def partition_items(
    partition: str | None, table: str
) -> tuple[list[exp.Expression], list[exp.Expression]]:
    """The (aliased select items, group items) that give a count query its wml_part column:
    the ``partition`` column of ``table`` (e.g. a cross-validation fold id), or the constant 0
    when the rows are one partition (None)."""
    if partition is None:
        return [alias(templates.literal(0), PARTITION)], []
    return [alias(column(partition, table), PARTITION)], [column(partition, table)]


def blocks(attributes: Sequence[str], size: int = DEFAULT_BLOCK_SIZE) -> list[list[str]]:
    """Consecutive groups of at most ``size`` attributes, in the given order."""
    if size < 1:
        raise ValueError(f"block size must be at least 1, got {size}")
    return [list(attributes[i : i + size]) for i in range(0, len(attributes), size)]


def slot_value(slots: Sequence[str], slot: exp.Expression) -> exp.Case:
    """``CASE <slot> WHEN 0 THEN CAST(b.a0 AS VARCHAR) WHEN 1 THEN ... END``: the value, as
    text, of the block column whose index the ``slot`` expression names (the one CASE
    builder of the block queries here and in stats/pairs.py)."""
    case = exp.Case()
    for s, name in enumerate(slots):
        case = case.when(
            exp.EQ(this=slot.copy(), expression=exp.Literal.number(s)),
            exp.cast(column(name, "b"), exp.DataType.Type.VARCHAR),
            copy=False,
        )
    return case


@dataclass(frozen=True)
class _Digit:
    """One column of a packed block key: ``name`` (its block column: class_value, a0, ...), its
    value over the source row, its range, and the key's multiplier of its digit."""

    name: str
    value: exp.Expression
    low: int
    high: int
    multiplier: int

    @property
    def null_slot(self) -> int:
        """The digit of a NULL: the one after the largest value's."""
        return self.high - self.low + 1

    def packed(self) -> exp.Expression:
        """``COALESCE(value - low, null_slot) * multiplier`` over the source row (the value
        cast to INTEGER when its range fits one, so that a narrower type cannot overflow)."""
        value = self.value.copy()
        if _INTEGER_RANGE[0] <= self.low and self.high <= _INTEGER_RANGE[1]:
            value = exp.cast(value, exp.DataType.Type.INT)
        if self.low != 0:
            value = exp.Sub(this=value, expression=templates.literal(self.low))
        digit = exp.Coalesce(this=value, expressions=[templates.literal(self.null_slot)])
        if self.multiplier == 1:
            return digit
        return exp.Mul(
            this=exp.paren(digit, copy=False), expression=templates.literal(self.multiplier)
        )

    def decoded(self, key: exp.Expression) -> exp.Expression:
        """The value back from the block key ``key``: ``NULLIF(key // multiplier % slots,
        null_slot) + low`` (NULL for the NULL slot)."""
        digit: exp.Expression = key.copy()
        if self.multiplier > 1:
            digit = exp.IntDiv(this=digit, expression=templates.literal(self.multiplier))
        digit = exp.Mod(this=digit, expression=templates.literal(self.null_slot + 1))
        value = exp.Nullif(this=digit, expression=templates.literal(self.null_slot))
        return exp.Add(this=value, expression=templates.literal(self.low)) if self.low else value


def _digits(columns: Sequence[tuple[str, exp.Expression, tuple[int, int]]]) -> list[_Digit]:
    """The digits of a block key over ``columns`` (block column, value, range), in order,
    leaving out a column whose slots would take the key past :data:`MAX_PACKED_KEY`."""
    digits: list[_Digit] = []
    multiplier = 1
    for name, value, (low, high) in columns:
        slots = high - low + 2
        if multiplier * slots - 1 > MAX_PACKED_KEY:
            continue
        digits.append(_Digit(name, value, low, high, multiplier))
        multiplier *= slots
    return digits


Range = tuple[int, int] | None
"""A block column's code range (smallest, largest value), or None: not a known code."""


def _block_counts(
    source: exp.Table,
    target: tuple[str, Range],
    items: Sequence[tuple[str, exp.Expression, Range]],
    partition: str | None,
    weight: str | None,
) -> exp.Query:
    """The joint counts of one block: class_value, the block columns ``items`` (name, value
    over ``src``, code range), wml_part, n. ``count_block.sql``, or ``count_packed_block.sql``
    when at least two of its columns (the ``target``, with its code range, among them) are
    codes of known ranges."""
    source_part, source_group = partition_items(partition, "src")
    columns = [("class_value", column(target[0], "src"), target[1]), *items]
    digits = _digits([(name, value, codes) for name, value, codes in columns if codes])
    if len(digits) < 2:
        return templates.build(
            "count_block",
            source=source,
            target=target[0],
            block_columns=[*source_part, *(alias(value, name) for name, value, _ in items)],
            group_columns=[*source_group, *(value.copy() for _, value, _ in items)],
            count=row_count(weight),
        )
    packed = {d.name: d for d in digits}
    key: exp.Expression = digits[0].packed()
    for digit in digits[1:]:
        key = exp.Add(this=key, expression=digit.packed())
    raw = [(name, value) for name, value, _ in columns if name not in packed]
    grouped_key = column("wml_key", "k")
    outputs = [
        alias(packed[name].decoded(grouped_key), name, copy=False)
        if name in packed
        else alias(column(name, "k"), name, copy=False)
        for name, _, _ in columns
    ]
    part = partition_items(PARTITION, "k")[0] if partition is not None else source_part
    return templates.build(
        "count_packed_block",
        source=source,
        grouped=[
            *(source_part if partition is not None else []),
            *(alias(value, name) for name, value in raw),
            alias(key, "wml_key"),
        ],
        group_columns=[*source_group, *(value.copy() for _, value in raw), key],
        columns=[*outputs, *part],
        count=row_count(weight),
    )


def categorical_counts(
    source: exp.Table,
    target: str,
    attributes: Sequence[str],
    block_size: int = DEFAULT_BLOCK_SIZE,
    partition: str | None = None,
    weight: str | None = None,
    values: Mapping[str, exp.Expression] | None = None,
    codes: CodeRanges | None = None,
) -> exp.Query:
    """Query of (attribute, value, class_label, n) for every categorical attribute.

    Output columns: wml_part, attribute (VARCHAR name), value (VARCHAR, the value cast to
    text), class_label (VARCHAR), n (BIGINT rows with that value and class; with ``weight``, a
    column of ``source``, their summed weights as DECIMAL(38, 18)). NULL values and NULL
    classes are left out; values with no row in a class are absent (filled in later). With
    ``partition`` (a source column such as a fold id) the counts are per partition value,
    still in one scan, in column ``wml_part``; without, wml_part is 0. ``values``: an
    attribute's value as an expression over the source row ``src`` (e.g. a bin index), in
    place of its column; each block computes only its own attributes' values. ``codes``:
    the target and attribute columns (their own values, not ``values``) holding integer codes
    within the given ranges, which a block groups as one packed key (module docstring); a
    value outside its range would be counted as another, so the ranges must be those of the
    rows counted (code_ranges, then check_code_ranges after counting).
    """
    valued = {a: column(a, "src") for a in attributes} | dict(values or {})
    coded = {a: r for a, r in (codes or {}).items() if a in attributes and a not in (values or {})}
    block_part, _ = partition_items(PARTITION, "b")
    counted_part, counted_group = partition_items(PARTITION, "x")
    selects = []
    for block in blocks(attributes, block_size):
        slots = [f"a{i}" for i in range(len(block))]
        counts = _block_counts(
            source,
            (target, (codes or {}).get(target)),
            [(s, valued[a], coded.get(a)) for a, s in zip(block, slots, strict=True)],
            partition,
            weight,
        )
        selects.append(
            templates.build(
                "count_values_from_block",
                block=counts,
                slots=templates.values(
                    [(a, i) for i, a in enumerate(block)], "s", ("attribute", "slot")
                ),
                value=slot_value(slots, column("slot", "s")),
                block_partition=block_part,
                partition_columns=counted_part,
                partition_group=counted_group,
            )
        )
    return templates.union_all(selects)
