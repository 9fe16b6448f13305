"""TAN attributes read by one join each: a fitted model's fallback chains resolved per (parent
value, value) when the model is written.

A TAN child's term is a chain (models/learners/bayes/tan_terms.py): the observed pair's ``cpt`` row,
else its parent value's ``cpt_parent`` row for a seen value, else the seen value's class-only
``categorical`` row, else the ``unseen`` row. Read by joins on the sparse tables
(models/keyed_terms/parameters.py, joined_term) it costs three joins, a fitted model's
``unseen`` being literals; a view of a TAN over the literal limits held three per child. The
``resolved`` table (warehouse_ml/sql/models/keyed_terms/create_tan_resolved.sql,
:func:`learn`) holds the chain's outcome for every seen value and every parent key: each seen value
of the parent (``parent_seen`` 1), and one key for a NULL or unseen parent value (``parent_seen`` 0,
``parent_value`` ''), the root's only key. So the attribute is one LEFT JOIN
(:func:`tan_terms`) on its value and its parent key: the parent's value when the parent's value
is seen, else the other key. Whether it is seen is known without another join: from the
parent's own resolved row (its join comes first, ``Join.order``), which a seen value always
finds, or from the parent's seen values written as literals (a parent within the literal
limits). A row found gives the term; none, a value unseen in training (a literal); a NULL value
gives 0.

The table is dense over the seen values, ``(parent's values + 1) * values`` rows per attribute,
so an attribute is written only while that stays within :data:`MAX_RESOLVED_ROWS`; the others,
and the integer codes of the lookup table (models/keyed_terms/lookup.py, one join already), are
read as before. A query that does not number its rows (a view's, an export, ``score_rows``)
reads through it the attributes over the literal limits, and every attribute once the literals
would exceed :data:`~warehouse_ml.models.keyed_terms.literal_terms.MAX_LITERAL_CELLS` (soybean's
TAN view: 35 joins instead of 911 KB of literals); a numbered query reads those in long format
(models/keyed_terms/long_terms.py). Cross-validation's models (several partitions) have no such
table.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.keyed_terms import parameters
from warehouse_ml.models.keyed_terms.declarations import Key, LogicalTerm
from warehouse_ml.models.keyed_terms.literal_terms import LiteralParameters
from warehouse_ml.models.scoring.relations import Join, pivot_columns
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import column, literal
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging

MAX_RESOLVED_ROWS = 65_536
"""Most rows of one attribute in the resolved table, ``(parent's values + 1) * values``: a
256-value child of a 255-value parent fits; wider ones keep the joins on the sparse tables."""


def layout(
    n_values: Mapping[str, int], parents: Mapping[str, str | None], placed: Collection[str]
) -> list[str]:
    """The attributes of a TAN tree (``parents``, in feature order) whose chains the resolved
    table holds: those with seen values (``n_values``: distinct values per attribute) outside
    the lookup table (``placed``), within :data:`MAX_RESOLVED_ROWS`."""
    return [
        attribute
        for attribute, parent in parents.items()
        if attribute not in placed
        and n_values.get(attribute, 0) > 0
        and (1 + (0 if parent is None else n_values.get(parent, 0))) * n_values[attribute]
        <= MAX_RESOLVED_ROWS
    ]


def learn(
    warehouse: Warehouse,
    tables: Staging,
    n_values: Mapping[str, int],
    parents: Mapping[str, str | None],
    placed: Collection[str],
    n_classes: int,
) -> tuple[str, ...]:
    """Write the resolved table (part ``resolved``) of the fitted TAN being learned in
    ``tables`` (one tree, ``parents``) for the attributes :func:`layout` chooses; returns
    them, in feature order (none: no table)."""
    attributes = layout(n_values, parents, placed)
    if attributes:
        warehouse.run(
            "create_tan_resolved",
            table=tables.table("resolved"),
            layout=templates.values(
                [(a, parents[a]) for a in attributes], "l", ("attribute", "parent")
            ),
            categorical=tables.named("categorical"),
            cpt=tables.named("cpt"),
            cpt_parent=tables.named("cpt_parent"),
            class_columns=pivot_columns("log_prob", n_classes, "lp"),
        )
    return tuple(attributes)


def tan_terms(
    record: ModelRecord,
    declared: Mapping[str, LogicalTerm],
    literals: LiteralParameters,
    k: int,
    placed: Collection[str],
) -> dict[str, Term]:
    """The terms read from the resolved table in a query that does not number its rows, by
    attribute (module docstring): of the attributes in the table and not ``placed`` in the
    lookup table, those over the literal limits, or every one when the others' literals
    (``declared``, a fitted model's ``literals``) exceed the budget in a model of at most
    :data:`~warehouse_ml.models.keyed_terms.literal_terms.MAX_JOINED_ATTRIBUTES` attributes (a
    wider one is read by literals: splice's 60 joins took 1.2 s to a one-row query, its
    literals 0.85 s); each with its parent's seen values known from the parent's resolved row
    or literals (else it keeps its joins)."""
    learned = record.state.learned
    parents = learned.parents or {}
    stored = [a for a in learned.resolved or () if a in declared and a not in placed]
    logical = [t for a, t in declared.items() if a not in placed]
    every = not literals.every_attribute and parameters.over_literal_budget(logical, literals, k)
    wanted = {a for a in stored if every or not parameters.within_limits(declared[a], literals)}
    depth = _depths(parents)
    found: dict[str, exp.Expression] = {}
    terms: dict[str, Term] = {}
    for attribute in sorted(wanted, key=lambda a: (depth[a], record.features.index(a))):
        parent = parents[attribute]
        if parent is None:
            seen = None
        elif parent in found:
            seen = found[parent]
        elif parent in declared and literals.loaded("categorical", parent):
            seen = _seen_literally(declared[parent], literals)
        else:
            continue
        name = f"wml_a{record.features.index(attribute)}"
        found[attribute] = exp.Not(this=exp.Is(this=column("value", name), expression=exp.null()))
        terms[attribute] = _term(
            record, declared[attribute], literals, seen, found[attribute], name, depth[attribute], k
        )
    return terms


def _depths(parents: Mapping[str, str | None]) -> dict[str, int]:
    """Each attribute's depth in the tree (the root's 0)."""
    depth: dict[str, int] = {}

    def of(attribute: str) -> int:
        if attribute not in depth:
            parent = parents[attribute]
            depth[attribute] = 0 if parent is None else of(parent) + 1
        return depth[attribute]

    for attribute in parents:
        of(attribute)
    return depth


def _key(term: LogicalTerm, key_column: str) -> Key:
    """The key of ``term`` compared with stored column ``key_column``."""
    return next(key for key in term.keys if key.column == key_column)


def _seen_literally(parent: LogicalTerm, literals: LiteralParameters) -> exp.Expression:
    """``value IN (seen values...)`` of a parent whose seen values ``literals`` hold (NULL for
    a NULL value, which the CASE of :func:`_term` takes as not seen)."""
    key = _key(parent, "value")
    seen = literals.cells("categorical", parent.attribute, 0, ("value",), parent.value_column)
    stored = [key.stored(text) for (text,) in sorted(seen)]
    if not stored:
        return exp.false()
    return exp.In(this=key.operand.copy(), expressions=stored)


def _term(
    record: ModelRecord,
    term: LogicalTerm,
    literals: LiteralParameters,
    seen: exp.Expression | None,
    found: exp.Expression,
    name: str,
    order: int,
    k: int,
) -> Term:
    """One LEFT JOIN of the attribute's resolved rows (``name``, made in ``order``) on its
    value and, but at the root, its parent key (``seen``: whether the parent's value is a
    seen one), and ``CASE WHEN missing IS NULL THEN 0 WHEN <found> THEN <the row's> ELSE
    <unseen> END`` per class, the unseen value from ``literals``."""
    on = _key(term, "value").matches(name)
    if seen is not None:
        parent_value = _key(term, "parent_value").operand
        flag = exp.case().when(seen.copy(), literal(1)).else_(literal(0))
        key = exp.case().when(seen.copy(), parent_value.copy()).else_(literal(""))
        on = exp.and_(
            on,
            expressions.equals(column("parent_seen", name), flag),
            expressions.equals(column("parent_value", name), key),
            copy=False,
        )
    rows = templates.build(
        "select_resolved_rows", table=record.table("resolved"), attribute=term.attribute
    )
    default = term.chain[-1].part
    per_class = [
        exp.case()
        .when(exp.Is(this=term.missing.copy(), expression=exp.null()), literal(0.0), copy=False)
        .when(found.copy(), column(f"lp_{c}", name), copy=False)
        .else_(
            literal(literals.cells(default, term.attribute, c, (), term.value_column).get(())),
            copy=False,
        )
        for c in range(k)
    ]
    return Term(per_class, [Join(rows, name, on=on, order=order)])
