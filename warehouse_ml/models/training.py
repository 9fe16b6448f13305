"""What a learner learns from: the labelled rows, their classes, and the models wanted of them.

A fit is a cross-validation with one partition. Every count and parameter table carries the
model it belongs to in column ``wml_part``: 0 for a fitted model; for cross-validation's
models, the fold each one holds out (model f trains on the rows outside fold f, and all k
models are learned by the same statements from one count scan grouped by fold). So a learner
has one learn path (:meth:`warehouse_ml.models.base.Classifier.learn_tables`) whatever the
number of models, and scoring tells the models apart by the rows' fold
(docs/ARCHITECTURE.md, "The learner protocol").
"""

from __future__ import annotations

import dataclasses
import decimal
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import DataError
from warehouse_ml.models.members import (
    ONE_MODEL,
    Folds,
    Grouped,
    Members,
    OneModel,
    StoredCounts,
    Update,
    WeightedMembers,
)
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats import counting
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.features import Feature
from warehouse_ml.store.ownership import Staging

HELD_OUT = "wml_held_out"
"""Column of the outside-partitions templates' models: the partition a model does not learn
from (cross-validation: its own fold; an update: none, :data:`NO_PARTITION`)."""
NO_PARTITION = -1
"""The held-out partition of an update's model: none, it learns from every count."""

MAX_CLASSES = 256
"""Most classes a model may have: each class is a column of every scoring step, and past a few
hundred classes the scoring SQL grows too wide for engines to plan in reasonable time."""


@dataclass(frozen=True)
class ClassCount:
    """One class of a model: its index (ascending order of the target's values, the column
    order of ``predict_proba``), its label as text (``class_label`` in the parameter tables),
    its value as stored in the catalog (JSON: str, int, bool, or text), its count ``n`` (its
    training rows; a weighted fit's summed weights) and, when they differ from ``n``, its
    training ``rows``."""

    index: int
    label: str
    value: Any
    n: float
    rows: int | None = None

    @property
    def n_rows(self) -> int:
        """The class's training rows, whatever their weights."""
        return int(self.n) if self.rows is None else self.rows


@dataclass(frozen=True)
class FoldedRows:
    """Labelled rows dealt to folds, as a cross-validation learns from them: ``rows`` (each
    with its fold, 0 .. ``folds`` - 1, in column ``fold``), the ``target``, the ``features``
    and the ``classes`` the folds' models number."""

    rows: Source
    fold: str
    folds: int
    target: str
    features: Sequence[Feature]
    classes: Sequence[ClassCount]


@dataclass(frozen=True)
class Training:
    """The rows a learner learns from and the models it learns of them.

    Attributes:
        source: the training rows (a NULL target is not counted).
        target: the class column.
        features: the attributes, each with its kind (categorical or numeric).
        classes: per model (member), its classes with their training rows.
        members: the models learned (models/members.py): one, a cross-validation's folds
            (``len(classes)`` of them), members with row weights of their own, or an update
            of a fitted model's stored counts (``classes`` are then the sums of both).
        weight: a column of ``source`` holding each row's weight (a weighted fit,
            stats/weights.py): every count is then a sum of weights.
    """

    source: Source
    target: str
    features: list[Feature]
    classes: list[list[ClassCount]]
    members: Members = ONE_MODEL
    weight: str | None = None

    @property
    def n_models(self) -> int:
        """Models learned at once (members 0 .. n_models - 1)."""
        return len(self.classes)

    @property
    def partition(self) -> str | None:
        """The column of ``source`` the count scans group the rows by (column wml_part of the
        counts): a cross-validation's fold, the member of :meth:`member_rows`; None when every
        row counts for model 0."""
        return self.members.partition

    @property
    def fold_column(self) -> str | None:
        """A cross-validation's fold column, whose fold f model f does not learn from; None
        for any other members."""
        return self.members.column if isinstance(self.members, Folds) else None

    @property
    def stored(self) -> StoredCounts | None:
        """An update's stored counts, which the source's are added to; None otherwise."""
        return self.members.stored if isinstance(self.members, Update) else None

    @property
    def carried(self) -> list[str]:
        """The source columns a count query passes through besides the attributes."""
        return [c for c in (self.target, self.partition, self.weight) if c is not None]

    @property
    def count_type(self) -> exp.DataType:
        """The type of the counts in the parameter tables (counting.count_type)."""
        return counting.count_type(self.weight)

    def member_rows(self, member: str, member_weight: str) -> Training:
        """The training as its count scans read it: for :class:`~warehouse_ml.models.members.
        WeightedMembers`, every row once per member, its number in column ``member`` and its
        weight in column ``member_weight`` (names the source does not have;
        members.WeightedMembers.rows), grouped by member, so that each member's counts are the
        counts of its own group; any other training as it is."""
        if not isinstance(self.members, WeightedMembers):
            return self
        rows = self.members.rows(self.source, self.weight, member, member_weight)
        return dataclasses.replace(self, source=rows, members=Grouped(member), weight=member_weight)

    def model_counts(
        self,
        warehouse: Warehouse,
        tables: Staging,
        role: str,
        counts: TableName | exp.Query,
        outside_template: str,
    ) -> exp.Query:
        """Each model's training counts from ``counts``, counts of the source grouped by
        :attr:`partition` (column wml_part; e.g. counting.categorical_counts(...,
        partition=training.partition)). One model, or members grouped by member
        (:meth:`member_rows`): ``counts`` themselves. Cross-validation: fold f's counts are
        the sums over the other folds (``outside_template``: select_counts_outside_partitions,
        select_moments_outside_partitions or select_pair_counts_outside_partitions), over the
        per-fold counts staged in table ``role`` (unless ``counts`` is a table already). An
        update: the source's counts and the ``stored`` ones staged together, summed (moments
        pooled) by the same template holding out no partition."""
        assert not isinstance(self.members, WeightedMembers), "counted from member_rows()"
        if isinstance(self.members, (OneModel, Grouped)):
            return counts if isinstance(counts, exp.Query) else _all_rows(counts)
        if isinstance(counts, exp.Query):
            staged = tables.table(role)
            warehouse.run_tree(templates.create_table_as(staged, counts))
            counts = staged
        models = [(p, p) for p in range(self.n_models)]
        if isinstance(self.members, Update):
            warehouse.run("insert_rows", table=counts, rows=self.members.stored.relation(role))
            models = [(0, NO_PARTITION)]
        held_out = templates.values(models, "p", (PARTITION, HELD_OUT))
        return templates.build(
            outside_template,
            per_partition=counts,
            partitions=held_out,
            count_type=self.count_type,
        )


def _all_rows(table: TableName) -> exp.Query:
    return exp.select(exp.Star()).from_(table.to_table())


def python_label(value: Any) -> Any:
    """A class label as stored in the catalog (JSON): str, int (an integer-valued decimal such
    as a HUGEINT too), bool, or text for other types."""
    if isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, decimal.Decimal) and value == value.to_integral_value():
        return int(value)
    return str(value)


def labelled_classes(
    warehouse: Warehouse, source: Source, target: str, weight: str | None = None
) -> tuple[list[ClassCount], int]:
    """The classes of ``target`` in ``source`` (ascending values; none for a source without
    labelled rows) with their rows (``weight``: a column of ``source``; each class's n is then
    its summed weights, DOUBLE, and ``rows`` its rows), and the rows whose target is NULL.
    Refuses (DataError) a label with a NUL character."""
    rows = warehouse.fetch(
        "select_classes",
        source=source.relation,
        target=target,
        count=counting.row_count(weight),
    ).to_pylist()
    n_null = sum(r["n_rows"] for r in rows if r["class_value"] is None)
    present = sorted(
        (r for r in rows if r["class_value"] is not None), key=lambda r: r["class_value"]
    )
    nul = [r["class_label"] for r in present if "\x00" in r["class_label"]]
    if nul:
        raise DataError(
            f"target column {target!r} of {source.description} has the class {nul[0]!r}, "
            "which contains a NUL character; expected labels without one (each class names "
            "a probability column p_<label>, and SQL engines end a name at NUL)"
        )
    classes = [
        ClassCount(
            i,
            r["class_label"],
            python_label(r["class_value"]),
            r["n"] if weight is None else float(r["n"]),
            None if weight is None else r["n_rows"],
        )
        for i, r in enumerate(present)
    ]
    return classes, n_null


def check_class_number(classes: Sequence[ClassCount], description: str, target: str) -> None:
    """Refuse (DataError) more than :data:`MAX_CLASSES` classes."""
    if len(classes) > MAX_CLASSES:
        raise DataError(
            f"target column {target!r} of {description} has {len(classes)} "
            f"classes; expected at most {MAX_CLASSES} (each class is a column of the "
            "scoring SQL): group rare classes in a view, or choose another target"
        )


def class_counts(warehouse: Warehouse, source: Source, target: str) -> tuple[list[ClassCount], int]:
    """The classes of ``target`` in ``source`` (:func:`labelled_classes`). Refuses
    (DataError, naming the column) a source with no rows, fewer than two classes, more than
    :data:`MAX_CLASSES`, or a label with a NUL character."""
    classes, n_null = labelled_classes(warehouse, source, target)
    if not classes and n_null == 0:
        raise DataError(
            f"source {source.description} has no rows; expected rows with at least two "
            f"classes in target column {target!r}"
        )
    if not classes:
        raise DataError(
            f"target column {target!r} of {source.description} is NULL in all "
            f"{n_null} rows; expected at least two classes"
        )
    if len(classes) < 2:
        raise DataError(
            f"target column {target!r} of {source.description} has a single class "
            f"{classes[0].value!r}; expected at least two classes"
        )
    check_class_number(classes, source.description, target)
    return classes, n_null


def total(classes: Sequence[ClassCount]) -> float:
    """The count of one model: the sum of its classes' counts (rows, or summed weights)."""
    return sum(c.n for c in classes)


def total_rows(classes: Sequence[ClassCount]) -> int:
    """Training rows of one model, whatever their weights."""
    return sum(c.n_rows for c in classes)
