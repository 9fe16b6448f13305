"""Join-free scoring terms for wide Naive Bayes models: the parameters written as literals.

Scoring normally joins each attribute's parameters (naive_bayes.py): one join per attribute.
The cost of a join chain grows faster than linearly with its length (planning, and one hash
table per join: about 15 s to score 2,000 rows of a 200-attribute model on DuckDB, against
0.3 s for this form), so a model with more than :data:`MAX_JOINED_ATTRIBUTES` attributes is
scored by expressions alone. Every term reads the parameter tables once, when the query is
built, and writes them as exact DOUBLE literals (see templates.literal):

* categorical: ``CASE WHEN x IS NULL THEN 0 WHEN x = v1 THEN log P(v1|c) ... ELSE <unseen>``;
* numeric: sql/term_gaussian.sql with the class's mean and variance as literals.

The values are identical to the joined form's: the same stored log-probabilities are added.
A prediction view of a wide model therefore holds its parameters; a re-fit rebuilds its views
(catalog.publish), so a view never disagrees with its model.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.lookup import integer_coded
from warehouse_ml.models.scoring import Term
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import column, literal
from warehouse_ml.stats.features import CATEGORICAL, Feature, value_expression
from warehouse_ml.store import catalog
from warehouse_ml.store.catalog import ModelRecord

MAX_JOINED_ATTRIBUTES = 48
"""Models with more attributes than this are scored by :func:`literal_terms`."""


def _rows(warehouse: Warehouse, record: ModelRecord, part: str) -> list[dict[str, Any]]:
    if part not in record.details.get("tables", []):
        return []
    return catalog.read_part(warehouse, record, part).to_pylist()


def _matches(value: exp.Expression, stored: str, feature: Feature) -> exp.Expression:
    """``value`` (the feature's column) equals the stored text ``stored`` of a seen value (the
    join form's test: integers that fit BIGINT natively, every other value through the text of
    features.value_expression)."""
    if integer_coded(feature.sql_type):
        return exp.EQ(this=value.copy(), expression=literal(int(stored)))
    text = expressions.as_text(value_expression(feature, value))
    return exp.EQ(this=text, expression=literal(stored))


def literal_terms(warehouse: Warehouse, record: ModelRecord, k: int) -> list[Term]:
    """One join-free term per attribute of ``record``, in feature order (the prior excluded)."""
    seen: dict[tuple[str, int], list[tuple[str, float | None]]] = defaultdict(list)
    for row in _rows(warehouse, record, "categorical"):
        seen[row["attribute"], row["class_index"]].append((row["value"], row["log_prob"]))
    unseen = {
        (r["attribute"], r["class_index"]): r["log_prob"]
        for r in _rows(warehouse, record, "unseen")
    }
    gaussian = {(r["attribute"], r["class_index"]): r for r in _rows(warehouse, record, "gaussian")}
    terms = []
    for name in record.features:
        kind, sql_type = (record.feature_types[name][key] for key in ("kind", "sql_type"))
        value = column(name, "s")
        per_class: list[exp.Expression] = []
        for c in range(k):
            if kind == CATEGORICAL:
                case = exp.case().when(
                    exp.Is(this=value.copy(), expression=exp.null()), literal(0.0)
                )
                feature = Feature(name, kind, sql_type)
                for stored, log_prob in sorted(seen[name, c], key=lambda item: item[0]):
                    case = case.when(_matches(value, stored, feature), literal(log_prob))
                per_class.append(case.else_(literal(unseen[name, c])))
            else:
                moments = gaussian.get((name, c), {})
                per_class.append(
                    templates.expression(
                        "term_gaussian",
                        value=expressions.as_double(value),
                        mean=literal(moments.get("mean")),
                        variance=literal(moments.get("variance")),
                    )
                )
        terms.append(Term(per_class))
    return terms
