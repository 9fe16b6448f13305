"""The class table every family writes: each model's classes, their counts and smoothed log
priors (warehouse_ml/sql/models/learners/shared/create_nb_classes.sql)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.training import ClassCount, total
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats import counting
from warehouse_ml.stats.counting import PARTITION


def create_classes_table(
    warehouse: Warehouse,
    table: TableName,
    models: Sequence[Sequence[ClassCount]],
    prior_alpha: float,
    count_type: exp.DataType | None = None,
) -> None:
    """Write a class table (wml_part, class_index, class_label, n, log_prior) from each model's
    class counts (``models[p]``: partition p's), P(c) smoothed by ``prior_alpha`` (Naive Bayes,
    TAN, the tree and k-NN); n of type ``count_type`` (counting.count_type; default rows)."""
    rows = [
        (part, c.index, c.label, c.n, total(model))
        for part, model in enumerate(models)
        for c in model
    ]
    warehouse.run(
        "create_nb_classes",
        table=table,
        class_rows=templates.values(
            rows, "r", (PARTITION, "class_index", "class_label", "n", "n_total")
        ),
        prior_alpha=prior_alpha,
        n_classes=len(models[0]),
        count_type=count_type or counting.count_type(None),
    )
