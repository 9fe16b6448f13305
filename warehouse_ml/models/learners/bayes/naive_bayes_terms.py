"""The scoring terms of a Naive Bayes model (naive_bayes.py): log P(c) and each attribute's
log P(value | c), read from the model's parameter tables by the cheapest form in reach.

A categorical attribute is declared once (:func:`categorical_logical`): a NULL value gives 0,
a seen value its row of the ``categorical`` table, any other the ``unseen`` table's; the
planner of models/keyed_terms/parameters.py reads it as literals within the limits of
models/keyed_terms/literal_terms.py, from a lookup block of integer codes
(models/keyed_terms/lookup.py: faster on many rows than a CASE per code) unless the model is wide,
or by a join on the categorical pivot (cross-validation's models, one partition per fold,
always). The prior and numeric attributes are literals for a fitted model, joins on the pivots
of their tables for cross-validation's (models/scoring/relations.py).
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.inspection.evidence import Part, shown_value
from warehouse_ml.models.keyed_terms import literal_terms, lookup, parameters
from warehouse_ml.models.keyed_terms.declarations import Key, Level, LogicalTerm
from warehouse_ml.models.scoring.relations import Join, partition_condition, pivot_one_row
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import column
from warehouse_ml.stats.features import CATEGORICAL, Feature, compared_text, value_expression
from warehouse_ml.store.catalog import ModelRecord


def model_terms(warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
    """The prior, then each attribute's term by the planner (models/keyed_terms/parameters.py),
    lookup blocks of integer codes included unless the model is wide, many parameters in long
    format over the numbered rows."""
    k = len(record.classes)
    partition = partition_of(record)
    literals = literal_terms.load(warehouse, record) if partition is None else None
    prior = prior_term(record, k) if literals is None else literal_terms.prior_term(literals)
    wide = literals is not None and literals.every_attribute
    looked_up = {} if wide else lookup.block_terms(record, k, partition)
    declared = declared_terms(record, source, literals)
    row = source.row
    return [
        prior,
        *parameters.attribute_terms(record, declared, literals, partition, looked_up, row),
    ]


def model_parts(warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Part]:
    """One term per attribute of a fitted model (no lookup block, which sums several),
    shown with the row's value as counted (features.value_expression) as text."""
    literals = literal_terms.load(warehouse, record)
    declared = declared_terms(record, source, literals)
    terms = parameters.attribute_terms(record, declared, literals, None, {})
    return [
        Part(name, term, shown_value(record, name))
        for name, term in zip(record.features, terms, strict=True)
    ]


def declared_terms(
    record: ModelRecord, source: Source, literals: literal_terms.LiteralParameters | None
) -> list[LogicalTerm | Term]:
    """Each attribute's term in feature order: a categorical one declared
    (:func:`categorical_logical`), a numeric one's Gaussian term (literals where ``literals``
    holds them, else joins)."""
    k = len(record.classes)
    declared: list[LogicalTerm | Term] = []
    for i, name in enumerate(record.features):
        if record.feature_types[name]["kind"] == CATEGORICAL:
            declared.append(categorical_logical(record, name, source.field(name).type))
        elif literals is None:
            declared.append(gaussian_term(record, name, f"wml_g{i}", k))
        else:
            declared.append(literal_terms.gaussian_term(literals, name, k))
    return declared


def partition_of(record: ModelRecord) -> str | None:
    """The scored rows' column naming their model partition (cross-validation's held-out fold),
    for a record of cross-validation's models; None for a fitted model (partition 0 only)."""
    return record.state.partition_column


def _one_row_join(query: exp.Query, name: str, partition: str | None) -> Join:
    """A one-row-per-partition pivot, LEFT JOINed on the row's partition (so a pivot with no
    row, e.g. the unseen row of an attribute never seen, leaves NULLs instead of no row)."""
    return Join(query, name, on=partition_condition(name, partition))


def prior_term(record: ModelRecord, k: int) -> Term:
    """log P(c), read from the model's classes table."""
    query = pivot_one_row(record.parameters("classes"), "log_prior", k, "lp")
    return Term(
        [column(f"lp_{c}", "wml_prior") for c in range(k)],
        [_one_row_join(query, "wml_prior", partition_of(record))],
    )


def categorical_logical(
    record: ModelRecord,
    attribute: str,
    source_type: pa.DataType,
    value: exp.Expression | None = None,
) -> LogicalTerm:
    """log P(attribute value | c): 0 for NULL, a seen value's row of the ``categorical`` table,
    else the ``unseen`` table's.

    ``value`` is the attribute's value in the scored row: by default the source column
    ``s.<attribute>`` (of Arrow type ``source_type``) as counted (features.value_expression),
    integer codes compared as integers (the few stored values cast back, not every scored row
    to text), other values as text (features.compared_text); TAN passes its value, a bin
    expression for a discretised numeric attribute, compared as text.
    """
    fitted_type = record.feature_types.get(attribute, {}).get("sql_type", "")
    feature = Feature(attribute, CATEGORICAL, fitted_type)
    raw = value_expression(feature, column(attribute, "s")) if value is None else value
    if value is None and lookup.integer_coded(fitted_type):
        key = Key("value", raw, integer=True)
    else:
        key = Key("value", compared_text(raw, source_type))
    return LogicalTerm(attribute, raw, (key,), (Level("categorical", ("value",)), Level("unseen")))


def gaussian_term(record: ModelRecord, attribute: str, name: str, k: int) -> Term:
    """log N(x; mean_c, variance_c) of a numeric attribute."""
    partition = partition_of(record)
    table = record.parameters("gaussian")
    joins = [
        _one_row_join(
            pivot_one_row(table, column_name, k, prefix, attribute), f"{name}_{prefix}", partition
        )
        for column_name, prefix in (("mean", "mean"), ("variance", "var"))
    ]
    value = expressions.as_double(column(attribute, "s"))
    per_class = [
        templates.expression(
            "term_gaussian",
            value=value,
            mean=column(f"mean_{c}", f"{name}_mean"),
            variance=column(f"var_{c}", f"{name}_var"),
        )
        for c in range(k)
    ]
    return Term(per_class, joins)
