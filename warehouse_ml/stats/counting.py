"""Count queries: how the data is read to learn parameters.

Categorical counts group the class with a *block* of attributes at a time (one scan of those
columns per block) and sum each attribute's marginal out of the block's small joint table, all
in one statement. ``bench/nb.py`` measured this against GROUPING SETS and a UNION ALL of one
GROUP BY per attribute: blocks of 4 were the fastest on integer codes and on strings. A block's
marginals are one GROUP BY over its joint table crossed with its attributes' slots
(``count_values_from_block.sql``), as pair counts are (stats/pairs.py): a GROUP BY per
attribute made DuckDB plan for longer than it counted on small tables (35 attributes: 0.2 s
of planning for 700 rows), and costs the same on large ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

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


def categorical_counts(
    source: exp.Table,
    target: str,
    attributes: Sequence[str],
    block_size: int = DEFAULT_BLOCK_SIZE,
    partition: str | None = None,
    weight: str | None = None,
    values: Mapping[str, exp.Expression] | None = None,
) -> exp.Query:
    """Query of (attribute, value, class_label, n) for every categorical attribute.

    Output columns: wml_part, attribute (VARCHAR name), value (VARCHAR, the value cast to
    text), class_label (VARCHAR), n (BIGINT rows with that value and class; with ``weight``, a
    column of ``source``, their summed weights as DECIMAL(38, 18)). NULL values and NULL
    classes are left out; values with no row in a class are absent (filled in later). With
    ``partition`` (a source column such as a fold id) the counts are per partition value,
    still in one scan, in column ``wml_part``; without, wml_part is 0. ``values``: an
    attribute's value as an expression over the source row ``src`` (e.g. a bin index), in
    place of its column; each block computes only its own attributes' values.
    """
    valued = {a: column(a, "src") for a in attributes} | dict(values or {})
    source_part, source_group = partition_items(partition, "src")
    block_part, _ = partition_items(PARTITION, "b")
    counted_part, counted_group = partition_items(PARTITION, "x")
    selects = []
    for block in blocks(attributes, block_size):
        slots = [f"a{i}" for i in range(len(block))]
        counts = templates.build(
            "count_block",
            source=source,
            target=target,
            block_columns=[
                *source_part,
                *(alias(valued[a], s) for a, s in zip(block, slots, strict=True)),
            ],
            group_columns=[*source_group, *(valued[a].copy() for a in block)],
            count=row_count(weight),
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
