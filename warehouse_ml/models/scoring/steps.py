"""The steps a scoring or explanation query is made of: named CTEs, each ``SELECT *, ... FROM``
the step before it, and the pieces every step kind shares.

A query of steps reads the source once, in its first step (:func:`input_step`); every later
step carries the library's own names alone, so no source column can stand in for one of them.
An engine that inlines each step into its readers (PostgreSQL: ``MATERIALIZED_STEPS``) copies a
step's expressions into every reference to them, level after level; :func:`with_steps` fences
the steps a query names (``AS MATERIALIZED``) on such an engine only, so each is computed once.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlglot import exp

from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column

INPUT = "wml_input"
"""The first step: the source's rows (numbered with ``row`` when one is asked for)."""
ROW = "wml_row"
"""The column carrying a scored row's ordinal (1-based, scan order) through the steps."""

Step = tuple[str, exp.Query]
"""A named step: its CTE name and its query."""


def carried(n_passthrough: int, row: str | None) -> list[str]:
    """The columns every step after the first carries: the passed-through source columns as
    ``wml_k_<i>``, then the row number :data:`ROW` when the rows are numbered."""
    return [f"wml_k_{i}" for i in range(n_passthrough)] + ([ROW] if row else [])


def balanced_sum(items: Sequence[exp.Expression]) -> exp.Expression:
    """``items`` added pairwise, ``(t1 + t2) + (t3 + t4) ...``: a fixed order (so results are
    identical on every run and engine) whose nesting depth grows as log2 of the number of terms
    (a left-to-right chain of 1,000 terms exceeds DuckDB's expression depth limit)."""

    def grouped(item: exp.Expression) -> exp.Expression:
        return exp.paren(item, copy=False) if isinstance(item, exp.Binary) else item

    level = list(items)
    while len(level) > 1:
        paired = [
            exp.Add(this=grouped(level[i]), expression=grouped(level[i + 1]))
            for i in range(0, len(level) - 1, 2)
        ]
        level = paired + level[len(level) - len(level) % 2 :]
    return level[0]


def greatest(items: Sequence[exp.Expression]) -> exp.Expression:
    """GREATEST that skips NULLs (the behaviour of DuckDB, PostgreSQL and Spark)."""
    return exp.Greatest(
        this=items[0].copy(), expressions=[i.copy() for i in items[1:]], ignore_nulls=True
    )


def least(items: Sequence[exp.Expression]) -> exp.Expression:
    """LEAST that skips NULLs."""
    return exp.Least(
        this=items[0].copy(), expressions=[i.copy() for i in items[1:]], ignore_nulls=True
    )


def first_where(
    conditions: Sequence[exp.Expression], values: Sequence[exp.Expression]
) -> exp.Expression:
    """``CASE WHEN cond_0 THEN values[0] WHEN cond_1 THEN values[1] ... END``: the value of the
    first condition that holds, NULL when none does."""
    case = exp.case()
    for condition, value in zip(conditions, values, strict=True):
        case = case.when(condition, value, copy=False)
    return case


def layer(previous: str, columns: Sequence[exp.Expression]) -> exp.Select:
    """``SELECT *, columns FROM previous``: one step of a query of steps."""
    return exp.select(exp.Star(), *columns).from_(exp.to_table(previous))


def input_step(source: exp.Expression, row: str | None) -> exp.Query:
    """The first step, :data:`INPUT`: the source's rows, numbered in scan order as ``row``
    when it is given (a name no source column has)."""
    if row is None:
        return exp.select(exp.Star()).from_(source.copy())
    return templates.build("select_numbered", source=source, row=row)


def carried_from_input(
    passthrough: Sequence[tuple[str, str]], row: str | None
) -> list[exp.Expression]:
    """The carried columns (:func:`carried`) as read from :data:`INPUT` ``AS s``: each
    passed-through source column (the first of each (source column, output name) pair) as
    ``wml_k_<i>``, then ``s.<row> AS wml_row`` with ``row``."""
    items = [alias(column(c, "s"), f"wml_k_{i}") for i, (c, _) in enumerate(passthrough)]
    return items + ([] if row is None else [alias(column(row, "s"), ROW)])


def with_steps(
    query: exp.Select, steps: Sequence[Step], fenced: Collection[str], materialized: bool
) -> exp.Select:
    """``query`` over ``steps`` (CTEs, in order); with ``materialized`` (an engine's
    ``MATERIALIZED_STEPS``), the steps named in ``fenced`` are ``AS MATERIALIZED``."""
    for name, step in steps:
        fence = materialized and name in fenced
        query = query.with_(name, as_=step, copy=False, materialized=fence or None)
    return query
