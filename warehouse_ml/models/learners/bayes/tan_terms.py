"""The scoring terms of a TAN model (tan.py): log P(c) and each attribute's
log P(value | c, parent value), its fallbacks included, read from the model's parameter tables
by the cheapest form in reach.

An attribute with a parent is declared once (:func:`tan_logical`): a NULL value gives 0; an
observed (value, parent value) pair its row of the sparse ``cpt`` table; a seen value with a
parent value in ``cpt_parent`` (counted with the attribute, never with this value) that row;
otherwise (NULL or unseen parent value, unseen value) the class-only term, Naive Bayes'
(naive_bayes_terms.categorical_logical), which is the root's whole term. The planner of
models/keyed_terms/parameters.py reads it from a lookup block where its integer codes were placed
(models/keyed_terms/lookup.py, one INNER join per attribute), as literals within the limits of
models/keyed_terms/literal_terms.py, over them in a query that does not number its rows (a view's)
from the fitted model's resolved chains (models/keyed_terms/resolved.py, one join per attribute),
else by joins (cross-validation's models, each row scored with its fold's tree, always).
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.inspection.evidence import Part, shown_value
from warehouse_ml.models.keyed_terms import literal_terms, lookup, parameters, resolved
from warehouse_ml.models.keyed_terms.declarations import Key, Level, LogicalTerm
from warehouse_ml.models.learners.bayes.naive_bayes_terms import categorical_logical, prior_term
from warehouse_ml.models.scoring.relations import per_partition
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.sqlgen.templates import column
from warehouse_ml.stats import binning
from warehouse_ml.stats.features import Feature, compared_text
from warehouse_ml.store.catalog import ModelRecord


def model_terms(warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
    partition = record.state.partition_column
    literals = literal_terms.load(warehouse, record) if partition is None else None
    k = len(record.classes)
    prior = prior_term(record, k) if literals is None else literal_terms.prior_term(literals)
    row = source.row
    return [prior, *attribute_terms(record, source, literals, row)]


def model_parts(warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Part]:
    """One term per attribute, shown with its value and its parent's (as text)."""
    terms = attribute_terms(record, source, literal_terms.load(warehouse, record))
    parents = record.state.learned.parents
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
    row: str | None = None,
) -> list[Term]:
    """log P(x | parent value, c) of each attribute in feature order, by the planner: lookup
    blocks of placed codes, literals where ``literals`` holds them, joins on the sparse tables
    otherwise (and for cross-validation's models, ``literals`` None); with ``row`` (the
    scored rows' number), many parameters in long format."""
    k = len(record.classes)
    features = {f: Feature(f, t["kind"], t["sql_type"]) for f, t in record.feature_types.items()}
    edges = record.state.learned.binned_edges()
    partition = record.state.partition_column
    trees = record.state.learned.trees()
    placed = record.state.learned.lookup or {}

    def value_of(name: str) -> exp.Expression:
        return binning.value_expression(features[name], column(name, "s"), edges)

    def text_of(name: str) -> exp.Expression:
        return compared_text(value_of(name), source.field(name).type)

    def parent_text(name: str) -> exp.Expression | None:
        """The parent's value as text (parents of several types share a CASE), the row's own
        tree's parent when the scored rows carry a partition column; None at the root."""
        parents = [tree.get(name) for tree in trees]
        return per_partition(partition, [None if p is None else text_of(p) for p in parents])

    declared: list[LogicalTerm] = [
        tan_logical(record, name, source.field(name).type, value_of(name), parent_text(name))
        for name in record.features
    ]
    looked_up: dict[str, Term | None] = dict(lookup.tan_terms(record, placed, k, trees, partition))
    if literals is not None and row is None:
        by_name = dict(zip(record.features, declared, strict=True))
        looked_up.update(resolved.tan_terms(record, by_name, literals, k, placed))
    return parameters.attribute_terms(record, declared, literals, partition, looked_up, row)


def tan_logical(
    record: ModelRecord,
    attribute: str,
    source_type: pa.DataType,
    value: exp.Expression,
    parent_value: exp.Expression | None,
) -> LogicalTerm:
    """log P(value | c, parent value) of ``attribute``, whose value in the scored row is
    ``value`` (a bin for a discretised numeric attribute; of Arrow type ``source_type`` in the
    source) and its parent's ``parent_value`` as text (None at the root): the observed pair's
    ``cpt`` row, else the parent value's ``cpt_parent`` row for a seen value, else the
    class-only term."""
    class_only = categorical_logical(record, attribute, source_type, value=value)
    if parent_value is None:
        return class_only
    return LogicalTerm(
        attribute,
        class_only.missing,
        (Key("parent_value", parent_value), *class_only.keys),
        (
            Level("cpt", ("value", "parent_value")),
            Level("cpt_parent", ("parent_value",), requires="categorical"),
            *class_only.chain,
        ),
    )
