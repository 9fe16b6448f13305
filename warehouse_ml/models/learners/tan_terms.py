"""The scoring terms of a TAN model (tan.py): log P(c) and each attribute's
log P(value | c, parent value), its fallbacks included, read from the model's parameter tables
by the cheapest form in reach.

Placed integer codes are looked up (models/scoring/lookup.py, one INNER join per attribute);
a fitted model's attribute within the limits of models/scoring/literal_terms.py is a CASE over
its parent's value and its own; the rest, and cross-validation's models (each row scored with
its fold's tree), are joined on the sparse ``cpt`` and ``cpt_parent`` pivots with the
class-only term as fallback (sql/models/learners/tan/term_tan.sql).
"""

from __future__ import annotations

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.inspection.evidence import Part, shown_value
from warehouse_ml.models.learners.naive_bayes_terms import categorical_term, prior_term
from warehouse_ml.models.scoring import literal_terms, lookup
from warehouse_ml.models.scoring.literal_terms import LiteralParameters
from warehouse_ml.models.scoring.relations import (
    Join,
    partition_condition,
    per_partition,
    pivot_rows,
)
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import column
from warehouse_ml.stats import binning
from warehouse_ml.stats.features import Feature, compared_text
from warehouse_ml.store.catalog import ModelRecord


def model_terms(warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
    partition = record.details.get("partition_column")
    literals = literal_terms.load(warehouse, record) if partition is None else None
    k = len(record.classes)
    prior = prior_term(record, k) if literals is None else literal_terms.prior_term(literals)
    return [prior, *attribute_terms(record, source, literals)]


def model_parts(warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Part]:
    """One term per attribute, shown with its value and its parent's (as text)."""
    terms = attribute_terms(record, source, literal_terms.load(warehouse, record))
    parents = record.details["parents"]
    return [
        Part(
            name,
            term,
            shown_value(record, name),
            parents.get(name),
            None if parents.get(name) is None else shown_value(record, parents[name]),
        )
        for name, term in zip(record.features, terms, strict=True)
    ]


def attribute_terms(
    record: ModelRecord,
    source: Source,
    literals: literal_terms.LiteralParameters | None,
) -> list[Term]:
    """log P(x | parent value, c) of each attribute in feature order: literals where
    ``literals`` holds them, lookup blocks of placed codes, joins on the sparse tables
    otherwise (and for cross-validation's models, ``literals`` None)."""
    k = len(record.classes)
    features = {f: Feature(f, t["kind"], t["sql_type"]) for f, t in record.feature_types.items()}
    edges = record.details.get("bins", {})
    partition = record.details.get("partition_column")
    trees = record.details["partition_parents"] if partition else [record.details["parents"]]
    placed = record.details.get("lookup", {})

    def value_of(name: str) -> exp.Expression:
        return binning.value_expression(features[name], column(name, "s"), edges)

    def text_of(name: str) -> exp.Expression:
        return compared_text(value_of(name), source.field(name).type)

    terms = []
    for i, name in enumerate(record.features):
        parents = [tree.get(name) for tree in trees]
        if name in placed:  # faster on many rows than a CASE per code
            terms.append(lookup.tan_term(record, name, f"wml_a{i}", k, parents, partition))
            continue
        if literals is not None and _literal(literals, name, parents[0]):
            parent = None if parents[0] is None else text_of(parents[0])
            value, text = value_of(name), text_of(name)
            terms.append(literal_terms.tan_term(literals, name, value, text, parent, k))
            continue
        value = value_of(name)
        seen_name = f"wml_a{i}"  # the fallback's join on the categorical table
        fallback = categorical_term(record, name, seen_name, k, value=value)
        parent_value = per_partition(  # as text: parents of several types share a CASE
            partition,
            [None if p is None else expressions.as_text(value_of(p)) for p in parents],
        )
        if parent_value is None:
            terms.append(fallback)
            continue
        cpt_name, parent_name = f"wml_t{i}", f"wml_q{i}"
        condition = expressions.all_equal(
            (column("value", cpt_name), expressions.as_text(value)),
            (column("parent_value", cpt_name), parent_value),
        )
        parent_condition = expressions.equals(column("parent_value", parent_name), parent_value)
        condition = exp.and_(condition, partition_condition(cpt_name, partition))
        parent_condition = exp.and_(parent_condition, partition_condition(parent_name, partition))
        pivot = pivot_rows(
            record.parameters("cpt"), ["value", "parent_value"], "log_prob", k, "lp", name
        )
        parent_pivot = pivot_rows(
            record.parameters("cpt_parent"), ["parent_value"], "log_prob", k, "lp", name
        )
        per_class = [
            templates.expression(
                "term_tan",
                value=value,
                found=column("value", cpt_name),
                known=column(f"lp_{c}", cpt_name),
                seen=column("value", seen_name),
                parent_found=column("parent_value", parent_name),
                parent_known=column(f"lp_{c}", parent_name),
                fallback=fallback.per_class[c],
            )
            for c in range(k)
        ]
        joins = [
            *fallback.joins,
            Join(pivot, cpt_name, on=condition),
            Join(parent_pivot, parent_name, on=parent_condition),
        ]
        terms.append(Term(per_class, joins))
    return terms


def _literal(literals: LiteralParameters, attribute: str, parent: str | None) -> bool:
    """Whether a fitted model's ``attribute`` is scored from literals: its seen values, and
    its observed pairs with its ``parent`` (if any), are within literal_terms' limits."""
    return literals.has_values(attribute) and (parent is None or literals.has_pairs(attribute))
