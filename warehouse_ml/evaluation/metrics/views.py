"""Measures as SQL that outlives the call: a measure's query as text for any dialect
(:func:`measure_sql`) or as a plain-SQL view (:func:`create_measure_view`), by the measure's
registry name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.sources import SourceLike, open_source
from warehouse_ml.evaluation.metrics import registry
from warehouse_ml.evaluation.metrics.spec import resolve
from warehouse_ml.sqlgen import dialects, templates
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats import weights
from warehouse_ml.store import ownership


def measure_sql(
    con: Connectable,
    measure: str,
    predictions: SourceLike,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
    dialect: str | None = None,
    weight: str | None = None,
    **options: Any,
) -> str:
    """The SQL text of one measure's query (a name in :data:`MEASURES`) in ``dialect``
    (default: the connection's). ``options`` are the measure's own keyword arguments
    (level, beta, positive, quantiles, recall_levels, floor, loss, keys)."""
    build = registry.entry(measure).build
    if dialect is not None:
        dialects.check_dialect(dialect)
    with session(con) as warehouse, open_source(warehouse, predictions) as src:
        spec = resolve(src, target, probabilities, prediction, weight)
        return templates.generate(build(spec, src, **options), dialect or warehouse.dialect)


def create_measure_view(
    con: Connectable,
    view: str | Sequence[str] | TableName,
    measure: str,
    predictions: str | Sequence[str] | TableName,
    *,
    target: str,
    probabilities: Mapping[Any, str] | None = None,
    prediction: str | None = None,
    weight: str | None = None,
    **options: Any,
) -> TableName:
    """Create (or replace) a plain-SQL view computing ``measure`` over a durable predictions
    relation (a table or view name, or a Parquet/CSV path). The view's columns are those of the
    measure's template (see the ``warehouse_ml/sql/evaluation/metrics/*.sql`` headers; ranking views
    keep class_index and have no class_label column). The view is warehouse-ml's own (ownership.py):
    its name must be new or a measure view made earlier (replaced); a user's object of that name, or
    the predictions relation itself, is a NameConflictError before anything runs."""
    build = registry.entry(measure).build
    with session(con) as warehouse, open_source(warehouse, predictions) as src:
        src.durable_spec("a measure view")
        spec = resolve(src, target, probabilities, prediction, weight)
        if weight is not None:
            weights.check_weight_column(warehouse, src, target, weight)
        query = build(spec, src, **options)
        sources = [] if src.object is None else [src.object]
        claimed = ownership.claim(warehouse, TableName.parse(view), "view", sources=sources)
        return ownership.create(
            warehouse, claimed, query, owner_kind="measure", owner=str(claimed.target),
            role=measure, created_by="create_measure_view", lifetime=ownership.KEPT,
        )  # fmt: skip
