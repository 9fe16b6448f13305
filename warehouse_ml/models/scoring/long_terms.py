"""Cross-validation's models read in long format: every declared attribute's term of every
scored row from one chain of joins, summed per row.

A cross-validation scores each row with its own fold's model, whose parameters are the rows of
its partition (column wml_part) in the same long-format tables as every other fold's
(models/scoring/relations.py). Read attribute by attribute (a pivot by class joined per
attribute and level), the query grows with the attributes times the classes and runs one join
per attribute and level: soybean's 35 attributes and 19 classes made 250 KB of SQL that took
longer to build and to plan than to run. :func:`summed_term` reads the learner's declarations
(models/scoring/parameters.py :class:`LogicalTerm`) instead as one relation:

1. the scored rows unpivoted: one row per row and attribute whose value is not NULL (a NULL
   value contributes 0), holding the row's key, its partition, the attribute's name and its
   key values as text (each attribute a ``SELECT`` over the input step, ``UNION ALL``);
2. per level of the fallback chain one LEFT JOIN to the level's table pivoted by class, every
   attribute at once (sql/models/scoring/pivot_attributes_by_class.sql), on (partition,
   attribute, the level's keys); each class's term is the chain's first level found, else the
   default (:meth:`LogicalTerm.first_found`, the rule the joined reader of a fitted model
   follows too);
3. each class's terms summed per row (sql/models/scoring/sum_long_terms.sql: NULL when a term
   is NULL, an impossible class).

Classes stay columns: a row per attribute and class would be K times the rows to join and
to group (soybean: 4 times slower). Attributes declared with the same key columns and chain
share one unpivot and one chain of joins (Naive Bayes' categorical attributes: one; TAN: its
root, and the attributes with a parent). The result is one
:class:`~warehouse_ml.models.scoring.scores.Term`, the relation LEFT JOINed to the scored rows
on their key: a row with every attribute NULL has no row there and gets 0. Keys are compared
as text, integer codes included: the stored value of a code is its text
(stats/features.compared_text), so ``stored = CAST(code AS VARCHAR)`` finds the rows
``CAST(stored AS BIGINT) = code`` finds, without casting another attribute's stored text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlglot import exp

from warehouse_ml.models.scoring.relations import Join, pivot_columns
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.models.scoring.steps import INPUT
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.store.catalog import ModelRecord

if TYPE_CHECKING:
    from warehouse_ml.models.scoring.parameters import LogicalTerm

KEY = "wml_key"
"""The scored row's identity (its key or number) in the long-format relations."""
SUMMED = "wml_summed"
"""The alias of the summed relation joined to the scored rows."""


def _term_column(class_index: int) -> str:
    return f"wml_t_{class_index}"


def summed_term(
    record: ModelRecord, declared: Sequence[LogicalTerm], row: str, partition: str | None
) -> Term:
    """The sum of the ``declared`` terms of each scored row per class, as one term joined on
    the row's ``row`` (a column of the input step ``AS s`` identifying each row: a unique,
    non-NULL key, or the query's row number); ``partition``: the input's column naming each
    row's model (None: partition 0, a fitted model's). Module docstring."""
    k = len(record.classes)
    shapes: dict[tuple[object, ...], list[LogicalTerm]] = {}
    for term in declared:
        shape = (tuple(x.column for x in term.keys), term.chain, term.value_column)
        shapes.setdefault(shape, []).append(term)
    cells = templates.union_all(
        _cells(record, terms, k, row, partition) for terms in shapes.values()
    )
    sums = [
        alias(
            templates.expression("summed_class_terms", term=column(_term_column(c), "c")),
            f"wml_j_{c}",
            copy=False,
        )
        for c in range(k)
    ]
    summed = templates.build("sum_long_terms", cells=cells, class_sums=sums)
    missing = exp.Is(this=column(KEY, SUMMED), expression=exp.null())
    per_class = [
        exp.case().when(missing.copy(), literal(0.0)).else_(column(f"wml_j_{c}", SUMMED))
        for c in range(k)
    ]
    on = expressions.equals(column(KEY, SUMMED), column(row, "s"))
    return Term(per_class, [Join(summed, SUMMED, on=on)])


def _unpivoted(term: LogicalTerm, row: str, partition: str | None) -> exp.Select:
    """One row per scored row whose value of ``term``'s attribute is not NULL: its ``row``,
    its partition, the attribute's name and each key of ``term`` as text, named as the stored
    key column."""
    texts = [
        alias(expressions.as_text(x.operand) if x.integer else x.operand, x.column)
        for x in term.keys
    ]
    part = literal(0) if partition is None else column(partition, "s")
    present = exp.Not(this=exp.Is(this=term.missing.copy(), expression=exp.null()))
    return (
        exp.select(
            alias(column(row, "s"), KEY),
            alias(part, PARTITION),
            alias(literal(term.attribute), "attribute"),
            *texts,
        )
        .from_(exp.to_table(INPUT).as_("s"))
        .where(present, copy=False)
    )


def _cells(
    record: ModelRecord,
    terms: Sequence[LogicalTerm],
    k: int,
    row: str,
    partition: str | None,
) -> exp.Select:
    """The terms of each scored row and attribute of ``terms`` (declared alike: the same key
    columns and chain): column wml_key, then ``wml_t_<i>`` per class."""
    first = terms[0]
    rows = templates.union_all(_unpivoted(term, row, partition) for term in terms)
    query = exp.select(alias(column(KEY, "u"), KEY)).from_(rows.subquery("u", copy=False))
    class_columns = pivot_columns(first.value_column, k, "lp")
    found: dict[str, exp.Expression] = {}
    values: dict[str, list[exp.Expression]] = {}
    for j, level in enumerate(first.chain):
        relation = f"wml_l{j}"
        pivot = templates.build(
            "pivot_attributes_by_class",
            table=record.parameters(level.part),
            attributes=[literal(term.attribute) for term in terms],
            key_columns=[alias(column(name, "p"), name) for name in level.keys],
            key_group=[column(name, "p") for name in level.keys],
            class_columns=class_columns,
        )
        on = expressions.all_equal(
            (column(PARTITION, relation), column(PARTITION, "u")),
            (column("attribute", relation), column("attribute", "u")),
            *((column(name, relation), column(name, "u")) for name in level.keys),
        )
        query = query.join(pivot.subquery(relation), on=on, join_type="LEFT", copy=False)
        if level.keys:
            found[level.part] = exp.Not(
                this=exp.Is(this=column(level.keys[0], relation), expression=exp.null())
            )
        values[level.part] = [column(f"lp_{c}", relation) for c in range(k)]
    for c in range(k):
        term = first.first_found(found, {part: v[c] for part, v in values.items()}, exp.case())
        query = query.select(alias(term, _term_column(c), copy=False), copy=False)
    return query
