"""The models one pass of a learner learns from a training's rows: its members.

A learner learns every member of a training (models/training.py, :class:`~warehouse_ml.models.
training.Training`) from the same statements, each member's count and parameter rows told apart
by column ``wml_part`` (its number, 0 .. n - 1). What the members are is one of four classes:

* :class:`OneModel`: one model (member 0) learns from every row.
* :class:`Folds`: a cross-validation's models; member f learns from the rows outside fold f (a
  column of the source numbers each row's fold). The count scans group the rows by fold, and
  member f's counts are the sums over the other folds: the members of 0/1 row weights
  (:meth:`Folds.weights`) learned at the cost of one model.
* :class:`WeightedMembers`: any members, each with its own weight for every row, an expression
  over the row's columns (a bootstrap's Poisson draw, a boosting round's weight; 0 leaves the
  row out of that member). The count scans read each row once per member
  (:meth:`WeightedMembers.rows`, the rows of :class:`Grouped` members) and group by member, so
  every member's counts come from one scan of the source.
* :class:`Update`: a fitted model's stored counts with a new batch's added.

A learner that cannot learn a training's members whole refuses them before any statement
(models/capabilities.py: ``require_learnable``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.counting import PARTITION

STORED_PARTITION = 1
"""The partition an update gives a model's stored counts (the batch's are partition 0)."""

ROW = "src"
"""The alias of the source row in the expressions of :class:`WeightedMembers`' weights."""


class EveryRow:
    """Members of one model, member 0, for which every row counts."""

    partition = None
    """No grouping column: every row counts for member 0."""

    @staticmethod
    def counted(group: exp.Expression, model: exp.Expression) -> exp.Expression:
        """Whether rows of ``group`` count for ``model``: every row does."""
        return exp.true()


@dataclass(frozen=True)
class OneModel(EveryRow):
    """One model, member 0, learns from every row."""


@dataclass(frozen=True)
class ColumnGroups:
    """Members whose count scans group the rows by a ``column`` of theirs."""

    column: str

    @property
    def partition(self) -> str:
        """The column the count scans group the rows by."""
        return self.column


@dataclass(frozen=True)
class Folds(ColumnGroups):
    """Cross-validation's ``folds`` models: ``column`` of the source numbers each row's fold
    0 .. folds - 1, and member f learns from the rows whose fold is not f."""

    folds: int

    @staticmethod
    def counted(group: exp.Expression, model: exp.Expression) -> exp.Expression:
        """Whether the rows of fold ``group`` count for ``model``: those outside its fold
        (``group <> model``; ``group`` an expression not NULL)."""
        return exp.NEQ(this=group, expression=model)

    def weights(self) -> tuple[exp.Expression, ...]:
        """The folds as members of 0/1 row weights: member f's weight of a row is 1 outside
        fold f, 0 inside (``CASE WHEN src.<column> <> f THEN 1 ELSE 0 END``), the
        :class:`WeightedMembers` whose counts the folds' are."""
        return tuple(
            exp.case()
            .when(exp.NEQ(this=column(self.column, ROW), expression=literal(f)), literal(1))
            .else_(literal(0))
            for f in range(self.folds)
        )


@dataclass(frozen=True)
class WeightedMembers:
    """Members each counting every row of the source with a weight of its own: ``weights[m]``,
    an expression over the row's columns (alias :data:`ROW`: ``src.<column>``) of a finite
    number >= 0, is member m's weight of the row (times the row's own weight, when the
    training has a weight column). A member learns what a weighted fit learns with those
    weights as its weight column."""

    weights: tuple[exp.Expression, ...]

    partition = None
    """No column of the source: :meth:`rows` adds the member's number as a column."""

    def rows(self, source: Source, weight: str | None, member: str, member_weight: str) -> Source:
        """Every row of ``source`` once per member, with the member's number in column
        ``member`` and its weight of the row in column ``member_weight`` (DOUBLE: the member's
        weight times the row's ``weight`` column, when there is one): the rows a count scan
        grouped by ``member`` counts, weighted by ``member_weight``, to learn every member at
        once. ``member`` and ``member_weight`` are names the source does not have."""
        numbers = templates.values([(m,) for m in range(len(self.weights))], "m", (member,))
        chosen = exp.case(column(member, "m"))
        for m, expression in enumerate(self.weights):
            chosen = chosen.when(literal(m), expressions.as_double(expression.copy()), copy=False)
        if weight is not None:
            chosen = exp.Mul(this=chosen, expression=expressions.as_double(column(weight, ROW)))
        rows = exp.select(
            *(column(c, ROW) for c in source.columns),
            alias(column(member, "m"), member),
            alias(chosen, member_weight, copy=False),
        ).from_(exp.alias_(source.relation.copy(), ROW, table=True), copy=False)
        rows = rows.join(numbers, join_type="cross", copy=False)
        schema = source.schema.append(pa.field(member, pa.int64())).append(
            pa.field(member_weight, pa.float64())
        )
        return dataclasses.replace(
            source, relation=rows.subquery("wml_member_rows", copy=False), schema=schema
        )


@dataclass(frozen=True)
class Grouped(ColumnGroups):
    """Members whose rows a count scan reads as they are, grouped by ``column``: member m
    learns from the rows whose ``column`` is m (:meth:`WeightedMembers.rows` makes them)."""

    @staticmethod
    def counted(group: exp.Expression, model: exp.Expression) -> exp.Expression:
        """Whether the rows of member ``group`` count for ``model``: its own
        (``group = model``)."""
        return exp.EQ(this=group, expression=model)


@dataclass(frozen=True)
class StoredCounts:
    """A fitted model's counts, laid out as a learner stages a source's counts per partition
    (the roles ``part_counts``, ``part_moments``, ``part_histogram`` and
    ``part_pair_counts``), as partition
    :data:`STORED_PARTITION`: what an update adds a batch's counts to
    (models/living/updating.py). Read from the model's ``categorical``, ``gaussian``, ``histogram``
    and ``pair_counts`` tables (model 0), their classes named by label."""

    record: Any  # store.catalog.ModelRecord

    def relation(self, role: str) -> exp.Query:
        """The stored counts of ``role`` (columns as the staged counts of that role)."""
        part, columns, counted = {
            "part_counts": ("categorical", ["attribute", "value"], ["n"]),
            "part_moments": ("gaussian", ["attribute"], ["n", "mean", "population_variance"]),
            "part_histogram": ("histogram", ["attribute", "value"], ["n"]),
            "part_pair_counts": (
                "pair_counts", ["attribute_i", "attribute_j", "value_i", "value_j"], ["n"],
            ),
        }[role]  # fmt: skip
        items = [
            templates.alias(templates.literal(STORED_PARTITION), PARTITION),
            *(templates.alias(templates.column(c, "s"), c) for c in columns),
            templates.alias(templates.column("class_label", "c"), "class_label"),
            *(templates.alias(templates.column(c, "s"), c) for c in counted),
        ]
        if role == "part_moments":
            items[-1] = templates.alias(templates.column("population_variance", "s"), "variance")
            items.append(templates.alias(exp.cast(exp.null(), "DOUBLE"), "extreme"))
        return (
            exp.select(*items)
            .from_(self.record.parameter_relation(part, "s"))
            .join(
                self.record.parameter_relation("classes", "c"),
                on=exp.and_(
                    exp.EQ(this=templates.column(PARTITION, "c"), expression=templates.literal(0)),
                    exp.EQ(
                        this=templates.column("class_index", "c"),
                        expression=templates.column("class_index", "s"),
                    ),
                ),
            )
            .where(
                exp.and_(
                    exp.EQ(this=templates.column(PARTITION, "s"), expression=templates.literal(0)),
                    exp.GT(this=templates.column("n", "s"), expression=templates.literal(0)),
                )
            )
        )


@dataclass(frozen=True)
class Update(EveryRow):
    """An update: one model (member 0) whose counts are the ``stored`` ones of a fitted model
    plus those of the new rows, every one of which counts."""

    stored: StoredCounts


Members = OneModel | Folds | WeightedMembers | Grouped | Update
"""What a training's members are (module docstring)."""

ONE_MODEL = OneModel()
