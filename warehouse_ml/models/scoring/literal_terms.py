"""Join-free scoring terms: a fitted model's parameters written into the query as literals.

Scoring by joins (naive_bayes.categorical_term, TAN's cpt joins) costs joins per attribute,
and what an engine spends planning a query grows with its joins: a 36-attribute TAN view held
143 joins, over 2 s of DuckDB planning for a one-row query, and a join chain of a 200-attribute
model took 15 s to score 2,000 rows. A fitted model (one partition) is therefore scored from
literals wherever its parameters are few; the values are read from its parameter tables when
the query is built (:func:`load`), one statement per table:

* the prior: ``log P(c)`` per class;
* a categorical attribute with at most :data:`MAX_LITERAL_VALUES` seen values (every one, and
  no lookup block, when the model has more than :data:`MAX_JOINED_ATTRIBUTES` attributes):
  ``CASE WHEN x IS NULL THEN 0 ELSE CASE x WHEN v1 THEN log P(v1|c) ... ELSE <unseen> END END``;
* a numeric attribute: sql/models/learners/naive_bayes/term_gaussian.sql with the class's mean and
variance;
* a TAN attribute with at most :data:`MAX_LITERAL_PAIRS` observed (value, parent value) pairs:
  a CASE over the parent's value, then over the value (:func:`tan_term`).

Every literal is the stored DOUBLE, written exactly (templates.literal), so the terms equal
those of the joined form. Lookup blocks of integer codes stay (models/scoring/lookup.py: one
perfect-hash join per block beats a CASE per code on many rows, 0.15 s against 4.7 s for TAN
over 1M rows x 20 codes), attributes with many values keep their joins, and so do
cross-validation's models (several partitions, scored by one statement over the whole
source). A prediction view holds its model's literals; a re-fit rebuilds its views
(catalog.publish), so a view never disagrees with its model.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.scoring.lookup import integer_coded
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import literal
from warehouse_ml.stats.features import Feature, compared_text, value_expression
from warehouse_ml.store import catalog
from warehouse_ml.store.catalog import ModelRecord

MAX_JOINED_ATTRIBUTES = 48
"""Models with more attributes than this get literal terms for every attribute."""

MAX_LITERAL_VALUES = 32
"""Most seen values of a categorical attribute scored from literals (in a model of at most
:data:`MAX_JOINED_ATTRIBUTES` attributes)."""

MAX_LITERAL_PAIRS = 64
"""Most observed (value, parent value) pairs of a TAN attribute scored from literals."""

Cell = tuple[str, float | None]
"""A stored value (as text) and its natural-log probability (None: impossible)."""


@dataclass
class LiteralParameters:
    """The parameters of a fitted model that its query writes as literals, per class index.

    ``seen[attribute, c]``: (value, log P(value | c)) of each seen value, by value;
    ``unseen[attribute, c]``: log-probability of a value never seen; ``gaussian[attribute, c]``:
    (mean, variance); ``pairs[attribute, c]``: {parent value: [(value, log-probability)]} of
    the observed pairs (TAN's ``cpt``); ``parent_rows[attribute, c]``: {parent value:
    log-probability} of a seen value with that parent value in no observed pair
    (``cpt_parent``). Attributes over the limits are absent (:meth:`has_values`), unless
    ``every_attribute`` (a model wider than :data:`MAX_JOINED_ATTRIBUTES`)."""

    prior: list[float | None]
    every_attribute: bool = False
    seen: dict[tuple[str, int], list[Cell]] = field(default_factory=lambda: defaultdict(list))
    unseen: dict[tuple[str, int], float | None] = field(default_factory=dict)
    gaussian: dict[tuple[str, int], tuple[float | None, float | None]] = field(default_factory=dict)
    pairs: dict[tuple[str, int], dict[str, list[Cell]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )
    parent_rows: dict[tuple[str, int], dict[str, float | None]] = field(
        default_factory=lambda: defaultdict(dict)
    )

    def has_values(self, attribute: str) -> bool:
        """Whether ``attribute``'s seen values were loaded (it is within the limits)."""
        return (attribute, 0) in self.seen

    def has_pairs(self, attribute: str) -> bool:
        """Whether ``attribute``'s observed pairs were loaded (TAN, within the limits)."""
        return (attribute, 0) in self.pairs


_LOADED: OrderedDict[tuple[Any, ...], LiteralParameters] = OrderedDict()
"""The parameters read by :func:`load`, by model version and limits, most recent last: a
version's tables never change (a re-fit writes new ones, and store/integrity.py verifies them
once per process), so a process reads them once."""

LOADED_MODELS = 32
"""Model versions whose literal parameters a process keeps."""


def load(warehouse: Warehouse, record: ModelRecord) -> LiteralParameters:
    """The literal-scored parameters of the fitted model ``record``: every attribute's when it
    has more than :data:`MAX_JOINED_ATTRIBUTES` attributes, else those within
    :data:`MAX_LITERAL_VALUES` / :data:`MAX_LITERAL_PAIRS`; read once per process and model
    version (a model outside the catalog, e.g. a cross-validation fold's, every time)."""
    if record.locations is not None:
        return _read(warehouse, record)
    key = (record.model_id, *limits())
    if key in _LOADED:
        _LOADED.move_to_end(key)
        return _LOADED[key]
    params = _LOADED[key] = _read(warehouse, record)
    while len(_LOADED) > LOADED_MODELS:
        _LOADED.popitem(last=False)
    return params


def limits() -> tuple[int, int, int]:
    """The limits in force (:data:`MAX_JOINED_ATTRIBUTES`, :data:`MAX_LITERAL_VALUES`,
    :data:`MAX_LITERAL_PAIRS`): with the model version, they decide a model's terms."""
    return (MAX_JOINED_ATTRIBUTES, MAX_LITERAL_VALUES, MAX_LITERAL_PAIRS)


def _read(warehouse: Warehouse, record: ModelRecord) -> LiteralParameters:
    every = len(record.features) > MAX_JOINED_ATTRIBUTES
    classes = catalog.read_part(warehouse, record, "classes").to_pylist()
    params = LiteralParameters(prior=[r["log_prior"] for r in classes], every_attribute=every)
    tables = record.details.get("tables", [])
    for row in _few(warehouse, record, "categorical", "categorical", MAX_LITERAL_VALUES, every):
        params.seen[row["attribute"], row["class_index"]].append((row["value"], row["log_prob"]))
    if "unseen" in tables:
        for row in catalog.read_part(warehouse, record, "unseen").to_pylist():
            params.unseen[row["attribute"], row["class_index"]] = row["log_prob"]
    if "gaussian" in tables:
        for row in catalog.read_part(warehouse, record, "gaussian").to_pylist():
            params.gaussian[row["attribute"], row["class_index"]] = (row["mean"], row["variance"])
    for row in _few(warehouse, record, "cpt", "cpt", MAX_LITERAL_PAIRS, every):
        cell = (row["value"], row["log_prob"])
        params.pairs[row["attribute"], row["class_index"]][row["parent_value"]].append(cell)
    for row in _few(warehouse, record, "cpt_parent", "cpt", MAX_LITERAL_PAIRS, every):
        key = (row["attribute"], row["class_index"])
        params.parent_rows[key][row["parent_value"]] = row["log_prob"]
    return params


def _few(
    warehouse: Warehouse, record: ModelRecord, part: str, counted: str, limit: int, every: bool
) -> list[dict[str, Any]]:
    """The rows of parameter table ``part`` of the attributes with at most ``limit`` rows of
    class 0 in table ``counted`` (of every attribute when ``every``), in a fixed order."""
    tables = record.details.get("tables", [])
    if part not in tables or counted not in tables:
        return []
    if every:
        return catalog.read_part(warehouse, record, part).to_pylist()
    return warehouse.fetch(
        "select_few_valued_rows",
        table=record.table(part),
        counted=record.table(counted),
        limit=limit,
    ).to_pylist()


def prior_term(params: LiteralParameters) -> Term:
    """log P(c) per class."""
    return Term([literal(lp) for lp in params.prior])


def _null_is_zero(value: exp.Expression, case: exp.Expression) -> exp.Expression:
    """``CASE WHEN value IS NULL THEN 0 ELSE case END``: a missing value contributes log 1."""
    missing = exp.Is(this=value.copy(), expression=exp.null())
    return exp.case().when(missing, literal(0.0), copy=False).else_(case, copy=False)


def _case_over(
    operand: exp.Expression,
    cells: Sequence[tuple[exp.Expression, float | None]],
    otherwise: exp.Expression,
) -> exp.Expression:
    """``CASE operand WHEN key THEN lp ... ELSE otherwise END`` (``otherwise`` alone when
    there is no cell)."""
    if not cells:
        return otherwise
    case = exp.Case(this=operand.copy())
    for key, log_prob in cells:
        case.when(key, literal(log_prob), copy=False)
    return case.else_(otherwise, copy=False)


def categorical_term(
    params: LiteralParameters,
    attribute: str,
    feature: Feature,
    source_type: pa.DataType,
    n_classes: int,
) -> Term:
    """log P(x | c) of a categorical attribute scored on the source column ``s.<attribute>``
    (of Arrow type ``source_type``): integer codes compared as integers, every other value by
    the text it was counted as (features.value_expression, features.compared_text), as the
    joined form does."""
    value = templates.column(attribute, "s")
    if integer_coded(feature.sql_type):
        operand: exp.Expression = value

        def key(stored: str) -> exp.Expression:
            return literal(int(stored))
    else:
        operand = compared_text(value_expression(feature, value), source_type)

        def key(stored: str) -> exp.Expression:
            return literal(stored)

    per_class = []
    for c in range(n_classes):
        cells = [(key(stored), lp) for stored, lp in sorted(params.seen.get((attribute, c), []))]
        unseen = literal(params.unseen.get((attribute, c)))
        per_class.append(_null_is_zero(value, _case_over(operand, cells, unseen)))
    return Term(per_class)


def gaussian_term(params: LiteralParameters, attribute: str, n_classes: int) -> Term:
    """log N(x; mean_c, variance_c) of a numeric attribute."""
    value = expressions.as_double(templates.column(attribute, "s"))
    per_class = []
    for c in range(n_classes):
        mean, variance = params.gaussian.get((attribute, c), (None, None))
        per_class.append(
            templates.expression(
                "term_gaussian", value=value, mean=literal(mean), variance=literal(variance)
            )
        )
    return Term(per_class)


def tan_term(
    params: LiteralParameters,
    attribute: str,
    value: exp.Expression,
    text: exp.Expression,
    parent_value: exp.Expression | None,
    n_classes: int,
) -> Term:
    """log P(x | parent value, c) of a TAN attribute; ``value`` is the attribute's value in
    the scored row, ``text`` that value as text and ``parent_value`` its parent's as text, None
    for the root (as the joined form compares them, features.compared_text). For a NULL value,
    0; for a parent value in the tables, the observed pair's log-probability, else the parent
    row's for a seen value, else the class-only term; for any other parent value (NULL, or
    never seen with the attribute) and at the root, the class-only term (the seen value's, or
    the unseen one)."""
    per_class = []
    for c in range(n_classes):
        seen = dict(params.seen.get((attribute, c), []))
        unseen = literal(params.unseen.get((attribute, c)))
        pairs = params.pairs.get((attribute, c), {}) if parent_value is not None else {}
        parent_rows = params.parent_rows.get((attribute, c), {})
        by_parent = []
        for parent in sorted(set(pairs) | set(parent_rows)):
            cells = dict(pairs.get(parent, []))
            for stored, lp in seen.items():
                if stored not in cells:
                    cells[stored] = parent_rows.get(parent, lp)
            inner = _case_over(text, [(literal(v), cells[v]) for v in sorted(cells)], unseen)
            by_parent.append((literal(parent), inner))
        class_only = _case_over(text, [(literal(v), seen[v]) for v in sorted(seen)], unseen)
        if not by_parent:
            per_class.append(_null_is_zero(value, class_only))
            continue
        case = exp.Case(this=parent_value.copy())
        for parent, inner in by_parent:
            case.when(parent, inner, copy=False)
        per_class.append(_null_is_zero(value, case.else_(class_only, copy=False)))
    return Term(per_class)
