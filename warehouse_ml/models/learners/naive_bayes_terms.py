"""The scoring terms of a Naive Bayes model (naive_bayes.py): log P(c) and each attribute's
log P(value | c), read from the model's parameter tables by the cheapest form in reach.

A fitted model's prior, numeric attributes and categorical attributes within the limits of
models/scoring/literal_terms.py are literals; blocks of integer codes are looked up
(models/scoring/lookup.py: faster on many rows than a CASE per code) unless the model is wide;
the rest, and cross-validation's models (one partition per fold), are joined on the pivots of
the parameter tables (models/scoring/relations.py). Each form gives a NULL value 0 and a value
never seen the ``unseen`` table's log-probability (sql/models/learners/naive_bayes/
term_categorical.sql for the joined form).
"""

from __future__ import annotations

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.inspection.evidence import Part, shown_value
from warehouse_ml.models.scoring import literal_terms, lookup
from warehouse_ml.models.scoring.relations import (
    Join,
    partition_condition,
    pivot_one_row,
    pivot_rows,
)
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import column
from warehouse_ml.stats.features import CATEGORICAL, Feature, value_expression
from warehouse_ml.store.catalog import ModelRecord


def model_terms(warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
    """A fitted model's prior, numeric attributes and categorical attributes within
    literal_terms' limits are literals; blocks of integer codes are looked up (faster on
    many rows than a CASE per code) unless the model is wide; the rest, and
    cross-validation's models, are joined."""
    k = len(record.classes)
    partition = partition_of(record)
    literals = literal_terms.load(warehouse, record) if partition is None else None
    terms = [prior_term(record, k) if literals is None else literal_terms.prior_term(literals)]
    blocks = [] if literals is not None and literals.every_attribute else lookup.blocks_of(record)
    block_of = {a[0]: b for b in blocks for a in b["attributes"]}
    for i, name in enumerate(record.features):
        block = block_of.get(name)
        if block is None:
            terms.append(attribute_term(record, source, literals, i, name))
        elif block["attributes"][0][0] == name:  # looked up with the block, at its first
            terms.append(lookup.lookup_term(record, block, f"wml_a{i}", k, partition))
    return terms


def model_parts(warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Part]:
    """One term per attribute of a fitted model (no lookup block, which sums several),
    shown with the row's value as counted (features.value_expression) as text."""
    literals = literal_terms.load(warehouse, record)
    return [
        Part(name, attribute_term(record, source, literals, i, name),
             shown_value(record, name))
        for i, name in enumerate(record.features)
    ]  # fmt: skip


def attribute_term(
    record: ModelRecord,
    source: Source,
    literals: literal_terms.LiteralParameters | None,
    i: int,
    name: str,
) -> Term:
    """The term of attribute ``name`` (the ``i``-th): literals where ``literals`` holds
    them, else joins on the parameter tables."""
    k = len(record.classes)
    fitted = record.feature_types[name]
    if fitted["kind"] != CATEGORICAL:
        if literals is None:
            return gaussian_term(record, name, f"wml_g{i}", k)
        return literal_terms.gaussian_term(literals, name, k)
    if literals is not None and literals.has_values(name):
        feature = Feature(name, CATEGORICAL, fitted["sql_type"])
        source_type = source.field(name).type
        return literal_terms.categorical_term(literals, name, feature, source_type, k)
    return categorical_term(record, name, f"wml_a{i}", k)


def partition_of(record: ModelRecord) -> str | None:
    """The scored rows' column naming their model partition (cross-validation's held-out fold),
    for a record of cross-validation's models; None for a fitted model (partition 0 only)."""
    return record.details.get("partition_column")


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


def categorical_term(
    record: ModelRecord, attribute: str, name: str, k: int, value: exp.Expression | None = None
) -> Term:
    """log P(attribute value | c): seen values by join, unseen values from the unseen table.

    ``value`` is the attribute's value in the scored row: by default the source column
    ``s.<attribute>`` as counted (features.value_expression); TAN passes its value, a bin
    expression for a discretised numeric attribute.
    """
    partition = partition_of(record)
    fitted_type = record.feature_types.get(attribute, {}).get("sql_type", "")
    feature = Feature(attribute, CATEGORICAL, fitted_type)
    raw = value_expression(feature, column(attribute, "s")) if value is None else value
    if value is None and lookup.integer_coded(fitted_type):
        # integer codes: the (few) stored values are cast back, not every scored row to text
        stored = expressions.as_bigint(column("value", name))
        condition = expressions.equals(stored, raw)
    else:
        text = expressions.as_text(raw)
        condition = expressions.equals(column("value", name), text)
    condition = exp.and_(condition, partition_condition(name, partition))
    seen = Join(
        pivot_rows(record.parameters("categorical"), ["value"], "log_prob", k, "lp", attribute),
        name,
        on=condition,
    )
    unseen_name = f"{name}_unseen"
    unseen = _one_row_join(
        pivot_one_row(record.parameters("unseen"), "log_prob", k, "lp", attribute),
        unseen_name,
        partition,
    )
    per_class = [
        templates.expression(
            "term_categorical",
            value=raw,
            seen=column("value", name),
            unseen=column(f"lp_{c}", unseen_name),
            known=column(f"lp_{c}", name),
        )
        for c in range(k)
    ]
    return Term(per_class, [seen, unseen])


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
