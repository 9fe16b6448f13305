"""Parameter relations a scoring term reads: pivots of a model's parameter tables (one column
per class), the joins that bring them to the scored rows, and the choice of a row's own model
partition (cross-validation scores every fold's model in one query, each row with its fold's).

Every pivot keeps column ``wml_part`` (0 for a fitted model; the fold for cross-validation's
models, models/training.py) and is joined on the scored row's partition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlglot import exp

from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import TableName, alias, column, literal
from warehouse_ml.stats.counting import PARTITION


@dataclass(frozen=True)
class Join:
    """A parameter relation joined to the source: ``LEFT JOIN (query) AS name ON condition``,
    a CROSS JOIN of a one-row relation when ``on`` is None, or an INNER JOIN when ``inner``
    (for a relation that holds a matching row for every scored row, e.g. a lookup table).
    ``query`` is a query (joined as a subquery) or a table. Joins are made in increasing
    ``order`` (stable): a condition reading another joined relation (a TAN child's resolved
    row keyed on its parent's found, models/keyed_terms/resolved.py) orders its join after it."""

    query: exp.Query | exp.Table
    name: str
    on: exp.Expression | None = None
    inner: bool = False
    order: int = 0

    def relation(self) -> exp.Expression:
        """The joined relation under its alias ``name``."""
        if isinstance(self.query, exp.Table):
            return exp.alias_(self.query.copy(), self.name, table=True)
        return self.query.subquery(self.name)


def pivot_columns(value_column: str, n_classes: int, prefix: str) -> list[exp.Expression]:
    """``MAX(CASE WHEN p.class_index = i THEN p.<value_column> END) AS <prefix>_<i>`` per class."""
    return [
        alias(
            templates.expression("class_cell", class_index=i, value=column(value_column, "p")),
            f"{prefix}_{i}",
        )
        for i in range(n_classes)
    ]


def partition_condition(name: str, partition: str | None) -> exp.Expression:
    """Join condition matching the pivot ``name`` (column wml_part) to the scored row's model
    partition: its ``partition`` column (cross-validation's held-out fold), or 0, a fitted
    model's (``partition`` None)."""
    row = literal(0) if partition is None else column(partition, "s")
    return expressions.equals(column(PARTITION, name), row)


def per_partition(
    partition: str | None,
    choices: Sequence[exp.Expression | None],
    default: exp.Expression | None = None,
) -> exp.Expression | None:
    """The scored row's own choice among expressions that differ per partition (e.g. a TAN
    attribute's parent in each cross-validation fold's tree): ``choices[0]`` when the model has
    one partition (``partition`` None), else ``CASE s.<partition> WHEN 0 THEN choices[0] ...
    ELSE default END``. A None choice stands for ``default`` (NULL when None). When every
    partition has the same choice (a tree that no fold changes), that choice itself."""
    if partition is None or all(choice == choices[0] for choice in choices):
        return choices[0] if choices[0] is not None else default
    case = exp.case(column(partition, "s"))
    for index, choice in enumerate(choices):
        if choice is not None:
            case = case.when(literal(index), choice)
    return case if default is None else case.else_(default)


def pivot_one_row(
    table: TableName | exp.Query,
    value_column: str,
    n_classes: int,
    prefix: str,
    attribute: str | None = None,
) -> exp.Query:
    """One row per model partition (column wml_part) with one column per class of
    ``table.value_column`` (of ``attribute``'s rows, or of every row)."""
    condition = (
        exp.true()
        if attribute is None
        else exp.EQ(this=column("attribute", "p"), expression=literal(attribute))
    )
    return templates.build(
        "pivot_by_class",
        table=table,
        condition=condition,
        class_columns=pivot_columns(value_column, n_classes, prefix),
    )


def pivot_rows(
    table: TableName | exp.Query,
    keys: Sequence[str],
    value_column: str,
    n_classes: int,
    prefix: str,
    attribute: str,
) -> exp.Query:
    """One row per model partition (column wml_part) and ``keys`` of one attribute, with one
    column per class of ``value_column``."""
    return templates.build(
        "pivot_rows_by_class",
        table=table,
        key_columns=[alias(column(key, "p"), key) for key in keys],
        key_group=[column(key, "p") for key in keys],
        attribute=attribute,
        class_columns=pivot_columns(value_column, n_classes, prefix),
    )
