"""Models read in long format: every declared attribute's term of every scored row from one
chain of joins, summed per row.

A cross-validation scores each row with its own fold's model, whose parameters are the rows of
its partition (column wml_part) in the same long-format tables as every other fold's
(models/scoring/relations.py). Read attribute by attribute (a pivot by class joined per
attribute and level), the query grows with the attributes times the classes and runs one join
per attribute and level: soybean's 35 attributes and 19 classes made 250 KB of SQL that took
longer to build and to plan than to run. :func:`summed_term` reads the learner's declarations
(models/keyed_terms/declarations.py :class:`LogicalTerm`) instead as one relation, for any scored
rows with a column identifying each (a cross-validation's key, or a query's row number) and
any model partition (a fitted model's is 0):

1. the scored rows unpivoted (warehouse_ml/sql/models/keyed_terms/select_rows_by_attribute.sql): one
   row per row and attribute whose value is not NULL (a NULL value contributes 0), holding the row's
   identity, its partition, the attribute's name and its key values as text, by one CROSS
   JOIN of the input with the attributes' names (``VALUES``) and a CASE per key column (a
   third faster on soybean than a ``SELECT`` per attribute under ``UNION ALL``);
2. per level of the fallback chain one LEFT JOIN to the level's table pivoted by class, every
   attribute at once (warehouse_ml/sql/models/keyed_terms/pivot_attributes_by_class.sql), on
   (partition, attribute, the level's keys); each class's term is the chain's first level found,
   else the default (:meth:`LogicalTerm.first_found`, the rule the joined reader of a fitted model
   follows too);
3. each class's terms summed per row (warehouse_ml/sql/models/keyed_terms/sum_long_terms.sql: NULL
   when a term is NULL, an impossible class).

Classes stay columns: a row per attribute and class would be K times the rows to join and
to group (soybean: 4 times slower). Attributes declared with the same key columns and chain
share one unpivot and one chain of joins (Naive Bayes' categorical attributes: one; TAN: its
root, and the attributes with a parent). The result is one
:class:`~warehouse_ml.models.scoring.scores.Term`, the relation LEFT JOINed to the scored rows
on their identity: a row with every attribute NULL has no row there and gets 0. Keys are
compared as text, integer codes included: the stored value of a code is its text
(stats/features.compared_text), so ``stored = CAST(code AS VARCHAR)`` finds the rows
``CAST(stored AS BIGINT) = code`` finds, without casting another attribute's stored text.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from warehouse_ml.models.keyed_terms.declarations import Key, LogicalTerm
from warehouse_ml.models.scoring.relations import Join, pivot_columns
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.models.scoring.steps import INPUT
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.store.catalog import ModelRecord

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


def _by_attribute(values: Sequence[exp.Expression]) -> exp.Expression:
    """``CASE a.wml_i WHEN 0 THEN values[0] WHEN 1 THEN values[1] ... END``: the unpivoted
    row's expression of its own attribute."""
    case = exp.case(column("wml_i", "a"))
    for i, value in enumerate(values):
        case = case.when(literal(i), value, copy=False)
    return case


def _key_text(key: Key) -> exp.Expression:
    """A key's value in the scored row as text (integer codes cast: module docstring)."""
    return expressions.as_text(key.operand) if key.integer else key.operand.copy()


def _unpivoted(terms: Sequence[LogicalTerm], row: str, partition: str | None) -> exp.Query:
    """One row per scored row and attribute of ``terms`` (declared alike) whose value is not
    NULL: its ``row`` (wml_key), its partition, the attribute's name and each key as text,
    named as the stored key column
    (warehouse_ml/sql/models/keyed_terms/select_rows_by_attribute.sql)."""
    present = [exp.Not(this=exp.Is(this=t.missing.copy(), expression=exp.null())) for t in terms]
    keys = [
        alias(_by_attribute([_key_text(t.keys[j]) for t in terms]), key.column, copy=False)
        for j, key in enumerate(terms[0].keys)
    ]
    attributes = templates.values(
        [(i, t.attribute) for i, t in enumerate(terms)], "a", ("wml_i", "attribute")
    )
    return templates.build(
        "select_rows_by_attribute",
        input=exp.to_table(INPUT),
        row=row,
        partition=literal(0) if partition is None else column(partition, "s"),
        attributes=attributes,
        present=_by_attribute(present),
        key_columns=keys,
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
    rows = _unpivoted(terms, row, partition)
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
