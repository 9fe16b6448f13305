"""A decision tree's numeric bin edges, for every model of a training in one statement
(select_tree_edges.sql): each model's equal-frequency edges of its own training rows (a fit's
one model: every row; cross-validation's fold f: the rows outside fold f; member m of members
of their own row weights: the rows of its group, learners/shared/member_rows.py), on the rows'
weights, so an integer weight counts as repeated rows."""

from __future__ import annotations

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import column
from warehouse_ml.stats import binning, counting
from warehouse_ml.stats.features import NUMERIC


def model_edges(
    warehouse: Warehouse, training: Training, bins: int
) -> list[dict[str, list[float]]]:
    """Each model's edges of each numeric attribute (ascending; empty for an attribute whose
    model rows are all NULL), cut into ``bins`` equal-frequency tiles: one statement."""
    numeric = [f.name for f in training.features if f.kind == NUMERIC]
    found: list[dict[str, set[float]]] = [
        {name: set() for name in numeric} for _ in range(training.n_models)
    ]
    if numeric:
        group = (
            exp.cast(exp.null(), exp.DataType.Type.INT)
            if training.partition is None
            else column(training.partition, "src")
        )
        models = templates.values([(m,) for m in range(training.n_models)], "m", ("model",))
        query = templates.union_all(
            templates.build(
                "select_tree_edges",
                source=training.source.relation,
                target=training.target,
                column=name,
                attribute=name,
                bins=bins,
                count=counting.row_count(training.weight),
                group=group,
                counted=training.members.counted(column("grouped", "h"), column("model", "m")),
                models=models,
            )
            for name in numeric
        )
        for row in warehouse.fetch_tree(query).to_pylist():
            described = training.source.description
            binning.finite_edge(row["attribute"], row["lower"], described)
            upper = binning.finite_edge(row["attribute"], row["upper"], described)
            found[row["model"]][row["attribute"]].add(upper)
    return [{name: sorted(values) for name, values in edges.items()} for edges in found]
