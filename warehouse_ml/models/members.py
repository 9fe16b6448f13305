"""The models one pass of a learner learns from a training's rows (models/training.py): here,
the stored counts an update adds a batch's to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from warehouse_ml.sqlgen import templates
from warehouse_ml.stats.counting import PARTITION

STORED_PARTITION = 1
"""The partition an update gives a model's stored counts (the batch's are partition 0)."""


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
