"""One planner for reading a model's parameters in its scoring query.

A learner declares each attribute's term as a :class:`LogicalTerm`
(models/keyed_terms/declarations.py): the scored row's values it keys on (:class:`Key`), and its
fallback chain, an ordered list of :class:`Level`: the rows of one long-format parameter table
(wml_part, attribute, key columns..., class_index, log_prob), matched on some of the keys, the
first matching level giving the term; the last level has no key (one row per attribute and
class, e.g. Naive Bayes' ``unseen`` table) and is the default. A NULL value (``missing``)
contributes 0 (log 1). Naive Bayes declares a categorical attribute as (seen value, unseen);
TAN as (observed value and parent value, the parent value's row for a seen value, seen value,
unseen) (models/learners/bayes/naive_bayes_terms.py, tan_terms.py).

This module turns those declarations into the query's terms, choosing the reader by size
(:func:`attribute_terms`):

* a lookup block of integer codes, where the learner laid one out when fitting
  (models/keyed_terms/lookup.py: one INNER join on an integer per block);
* literals (models/keyed_terms/literal_terms.py, :func:`literal_term`) when a fitted model's rows
  of every keyed level of the attribute are within its limits: nested ``CASE key WHEN stored
  THEN ...`` over the keys, outermost first, each branch resolved through the chain;
* otherwise one LEFT JOIN per keyed level on the pivot of its rows by class
  (:func:`joined_term`), joined on the row's keys and model partition, and the default level
  as literals (one value per class). Naive Bayes' categorical attribute is thus one join;
* for cross-validation's models (every fold's parameters in the same tables, each row scored
  with its own fold's), every declared attribute at once in long format
  (models/keyed_terms/long_terms.py): the rows unpivoted to one row per attribute, one join per
  level on (partition, attribute, keys) to its rows pivoted by class, each class's terms
  summed per row;
* for a fitted model in a query that numbers its rows (:func:`_unpivoted`; a query reading
  every row at once in scan order, ``Source.row``, as ``predict_proba``), the long format
  too, summed per row number, for every attribute once the literals would exceed
  :data:`~warehouse_ml.models.keyed_terms.literal_terms.MAX_LITERAL_CELLS` (DuckDB spent 0.2-0.4
  s planning soybean's 182 KB of Naive Bayes literals, 2-3 s on its TAN's 711 KB, for 683
  rows; the long format's statement is 22-30 KB whatever the parameters), and for the
  attributes over the literal limits when that takes fewer joins than joining each (a TAN
  child: three joins each; the long format: one per level of its chain for every child).
  A view's query never numbers its rows, so that a filter on the view's output reaches its
  source; it reads such a model by literals and joins, as above, a fitted TAN's attributes
  over the limits (and every one past the budget) by one join each on its chains resolved
  when it was written (models/keyed_terms/resolved.py, given here as ``looked_up`` terms).

Every reader gives the same term: the first level whose keys all match a row (and whose
``requires`` level matches too), else the default (:meth:`LogicalTerm.first_found` for the
joined readers); so the rule is written once, in the learner's declaration.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from sqlglot import exp

from warehouse_ml.models.keyed_terms import literal_terms, long_terms
from warehouse_ml.models.keyed_terms.declarations import Key, LogicalTerm
from warehouse_ml.models.keyed_terms.literal_terms import LiteralParameters
from warehouse_ml.models.scoring.relations import Join, partition_condition, pivot_rows
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.sqlgen.templates import column, literal
from warehouse_ml.store.catalog import ModelRecord


def attribute_terms(
    record: ModelRecord,
    declared: Sequence[LogicalTerm | Term],
    literals: LiteralParameters | None,
    partition: str | None,
    looked_up: Mapping[str, Term | None],
    row: str | None = None,
) -> list[Term]:
    """The terms of ``declared`` (one per attribute, in feature order): an attribute in
    ``looked_up`` (the learner's lookup blocks) is read from its block (None: summed in an
    earlier attribute's block, no term of its own); a :class:`LogicalTerm` by literals or joins
    (:func:`term_of`), or for a cross-validation's models (whose scored rows have a key,
    ``row_key`` of the record's state) with the others in one term summed in long format,
    last (models/keyed_terms/long_terms.py); a ready :class:`Term` (e.g. a Gaussian attribute's)
    as it is."""
    k = len(record.classes)
    terms = []
    summed: list[LogicalTerm] = []
    logical = [
        t for name, t in zip(record.features, declared, strict=True)
        if isinstance(t, LogicalTerm) and name not in looked_up
    ]  # fmt: skip
    unpivoted = _unpivoted(logical, literals, k) if row is not None else []
    for i, (name, term) in enumerate(zip(record.features, declared, strict=True)):
        if name in looked_up:
            block = looked_up[name]
            terms.extend([] if block is None else [block])
        elif isinstance(term, LogicalTerm) and record.state.row_key is not None:
            summed.append(term)
        elif any(term is u for u in unpivoted):
            continue
        elif isinstance(term, LogicalTerm):
            terms.append(term_of(term, record, literals, f"wml_a{i}", k, partition))
        else:
            terms.append(term)
    if summed:
        terms.append(long_terms.summed_term(record, summed, record.state.row_key, partition))
    if unpivoted:
        assert row is not None  # for the type checker: chosen only when the rows are numbered
        numbered = long_terms.summed_term(record, unpivoted, row, partition)
        terms.append(dataclasses.replace(numbered, numbered=True))
    return terms


def _unpivoted(
    logical: Sequence[LogicalTerm], literals: LiteralParameters | None, k: int
) -> list[LogicalTerm]:
    """The declared terms of a fitted model (``literals`` its parameters) that its numbered
    scoring query reads in long format (models/keyed_terms/long_terms.py): every one when
    the literal cells of those within the literal limits (their stored rows of the keyed
    levels times ``k`` classes) exceed
    :data:`~warehouse_ml.models.keyed_terms.literal_terms.MAX_LITERAL_CELLS`; else those over the
    limits (not loaded) when the long format reads them with fewer joins than
    :func:`joined_term` (one per keyed level and attribute), none otherwise."""
    if literals is None:
        return []
    if over_literal_budget(logical, literals, k):
        return list(logical)
    over = [t for t in logical if not within_limits(t, literals)]
    return over if _long_joins(over) < sum(len(t.keyed()) for t in over) else []


def within_limits(term: LogicalTerm, literals: LiteralParameters) -> bool:
    """Whether ``literals`` (a fitted model's) hold every keyed level of ``term``'s attribute,
    which is then read by literals (:func:`term_of`)."""
    return all(literals.loaded(level.part, term.attribute) for level in term.keyed())


def over_literal_budget(
    logical: Sequence[LogicalTerm], literals: LiteralParameters, k: int
) -> bool:
    """Whether the literal cells of the terms of ``logical`` within the limits (their stored
    rows of the keyed levels times ``k`` classes) exceed
    :data:`~warehouse_ml.models.keyed_terms.literal_terms.MAX_LITERAL_CELLS`."""
    loaded = [t for t in logical if within_limits(t, literals)]
    cells = k * sum(literals.count(level.part, t.attribute) for t in loaded for level in t.keyed())
    return cells > literal_terms.MAX_LITERAL_CELLS


def _long_joins(declared: Sequence[LogicalTerm]) -> int:
    """The joins of ``long_terms.summed_term`` reading ``declared``: per shape of declaration
    (key columns, chain, value column) the unpivot's and one per level of the chain, and the
    sums' join (none for no term)."""
    shapes = {(tuple(x.column for x in t.keys), t.chain, t.value_column) for t in declared}
    return 1 + sum(1 + len(chain) for _, chain, _ in shapes) if shapes else 0


def term_of(
    term: LogicalTerm,
    record: ModelRecord,
    literals: LiteralParameters | None,
    name: str,
    k: int,
    partition: str | None,
) -> Term:
    """``term`` from literals when ``literals`` (a fitted model's) hold every keyed level of
    the attribute, else from joins whose relations are named after ``name``."""
    if literals is not None and within_limits(term, literals):
        return literal_term(term, literals, k)
    return joined_term(term, record, literals, name, k, partition)


Cells = dict[tuple[str, ...], float | None]
"""A level's rows of one class: key values (as stored) to the per-class value."""


def literal_term(term: LogicalTerm, literals: LiteralParameters, k: int) -> Term:
    """``CASE WHEN missing IS NULL THEN 0 ELSE CASE key WHEN stored THEN ... END END`` per
    class, each innermost branch the chain's first matching level (sorted by stored text)."""
    per_class = []
    for c in range(k):
        cells = {
            level.part: literals.cells(level.part, term.attribute, c, level.keys, term.value_column)
            for level in term.chain
        }
        case = _nested_case(term, cells, list(term.keys))
        per_class.append(_null_is_zero(term.missing, case))
    return Term(per_class)


def _nested_case(term: LogicalTerm, alive: dict[str, Cells], keys: list[Key]) -> exp.Expression:
    """``CASE key WHEN stored THEN <inner> ... ELSE <inner, key matching none> END`` over the
    first of ``keys``, or the chain's value once every key is decided. ``alive``: the cells of
    each level still in reach on this branch (those agreeing with the keys decided; a level
    keyed on a key that matched none is gone)."""
    if not keys:
        return literal(_first_match(term, alive))
    key, rest = keys[0], keys[1:]
    keyed = {level.part: level.keys for level in term.chain if key.column in level.keys}
    others = {part: cells for part, cells in alive.items() if part not in keyed}
    branches: dict[str, dict[str, Cells]] = {}
    for part, columns in keyed.items():
        position = columns.index(key.column)
        for found, value in alive.get(part, {}).items():
            branch = branches.setdefault(found[position], {p: {} for p in keyed if p in alive})
            branch[part][found] = value
    otherwise = _nested_case(term, others, rest)
    if not branches:
        return otherwise
    case = exp.Case(this=key.operand.copy())
    for text in sorted(branches):
        inner = _nested_case(term, {**others, **branches[text]}, rest)
        case.when(key.stored(text), inner, copy=False)
    return case.else_(otherwise, copy=False)


def _first_match(term: LogicalTerm, alive: dict[str, Cells]) -> float | None:
    """The value of the chain's first level whose row matched every key (its one cell left in
    ``alive``) and whose required level matched too; the default level's otherwise."""
    for level in term.chain:
        if not level.keys:
            return alive.get(level.part, {}).get(())
        matched = bool(alive.get(level.part))
        if matched and (level.requires is None or alive.get(level.requires)):
            return next(iter(alive[level.part].values()))
    return None


def _null_is_zero(value: exp.Expression, case: exp.Expression) -> exp.Expression:
    """``CASE WHEN value IS NULL THEN 0 ELSE case END``: a missing value contributes log 1."""
    return exp.case().when(_is_null(value), literal(0.0), copy=False).else_(case, copy=False)


def _is_null(value: exp.Expression) -> exp.Expression:
    return exp.Is(this=value.copy(), expression=exp.null())


def joined_term(
    term: LogicalTerm,
    record: ModelRecord,
    literals: LiteralParameters | None,
    name: str,
    k: int,
    partition: str | None,
) -> Term:
    """One LEFT JOIN per keyed level (``<name>_<part>``, its rows pivoted by class, joined on
    the keys and the row's partition) and ``CASE WHEN missing IS NULL THEN 0 WHEN <level's row
    found> THEN <its value> ... ELSE <default> END`` per class; the default from ``literals``
    (a fitted model's: cross-validation's models are read by models/keyed_terms/long_terms.py)."""
    joins = []
    found: dict[str, exp.Expression] = {}
    values: dict[str, list[exp.Expression]] = {}
    for level in term.chain:
        if not level.keys:
            assert literals is not None, "a fitted model's default level, read as literals"
            values[level.part] = [
                literal(
                    literals.cells(level.part, term.attribute, c, (), term.value_column).get(())
                )
                for c in range(k)
            ]
            continue
        relation = f"{name}_{level.part}"
        keys = [key for key in term.keys if key.column in level.keys]
        table = record.parameters(level.part)
        query = pivot_rows(table, level.keys, term.value_column, k, "lp", term.attribute)
        on = exp.and_(*(key.matches(relation) for key in keys), copy=False)
        on = exp.and_(on, partition_condition(relation, partition), copy=False)
        found[level.part] = exp.Not(this=_is_null(column(level.keys[0], relation)))
        joins.append(Join(query, relation, on=on))
        values[level.part] = [column(f"lp_{c}", relation) for c in range(k)]
    per_class = [
        term.first_found(
            found,
            {part: by_class[c] for part, by_class in values.items()},
            exp.case().when(_is_null(term.missing), literal(0.0), copy=False),
        )
        for c in range(k)
    ]
    return Term(per_class, joins)
