"""Scoring a decision tree: as a nested CASE per class whose leaves are their probabilities
(:func:`class_probabilities`), or, for trees too large for the nested CASE (tree_model.route)
to plan and run well, through its node table, one join per level.

The ``routes`` parameter table (create_tree_routes.sql) holds, per node, one row for every code
a row's value can take there, naming the child it goes to and that child's own test:

* a threshold split: code 0 (``x <= t``), 1 (``x > t``) and :data:`NULL_CODE` (neither: a
  NULL), the last to the split's ``null`` branch;
* a ``values`` or ``subset`` split on a categorical attribute: each value any split of the
  attribute names (:func:`value_codes`, coded by its position among them, sorted) to the branch
  listing it, else the split's ``other`` branch; :data:`NULL_CODE` to the ``null`` branch, and
  :data:`UNSEEN_CODE` (a value no split names) to ``other``;
* a leaf: code 0 to itself, so a row that reached a leaf stays there at the levels below it.

Each row of the table carries the child's ``attribute`` (its position among the model's
features; NULL for a leaf) and ``threshold``, so the code of a row at the next level is known
from the row it joined: ``CASE attribute WHEN i THEN <code of attribute i> ... ELSE 0 END``.
The scoring query (:func:`walked_probabilities`) starts at the root (its test as literals),
LEFT JOINs the table once per level down to the tree's depth, then joins the leaves'
probabilities (the ``nodes`` table pivoted by class) on the node reached. Every code a row can
take at a node has its row, so each join finds exactly one; the rule is the nested CASE's, so
both give the same leaf and the same probabilities (the same stored doubles).

The planner (decision_tree.DecisionTree._scores) keeps the nested CASE up to
:data:`LITERAL_LEAVES` leaves, and walks the table past it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.learners.tree.model import Node, Split, route
from warehouse_ml.models.learners.tree.rows import split_value
from warehouse_ml.models.learners.tree.state import TreeState
from warehouse_ml.models.scoring.relations import (
    Join,
    partition_condition,
    per_partition,
    pivot_columns,
)
from warehouse_ml.models.scoring.scores import ClassProbabilities
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, alias, column, literal
from warehouse_ml.stats.features import Feature, value_expression
from warehouse_ml.store.catalog import ModelRecord

LITERAL_LEAVES = 128
"""The most leaves a tree scores by its nested CASE; a larger one walks its node table. The
CASE's cost grows with the tree (DuckDB plans it in time growing faster than its size, and runs
each WHEN over the rows of a vector still undecided there), the walk's with the depth (a hash
join per level on a small table). Measured by bench/tree_scoring.py (200,000 rows, random trees,
three classes, best of two): on DuckDB the CASE ran 0.66 s against the walk's 0.95 s at 64
leaves, 1.38 s against 1.55 s at 128, 6.3 s (2.0 s of it planning) against 2.4 s at 256, and
62 s (30 s planning) against 4.4 s at 1,024 (on 50,000 rows: 30 s of planning alone against
2.1 s for the whole walk). PostgreSQL, which evaluates a CASE row by row down one path, ran the
CASE faster than the walk at every size it finished (0.58 s against 4.6 s at 64 leaves; 2.0 s
against 5.2 s at 256 on 50,000 rows), and did not finish the two at 1,024 leaves in ten
minutes: past this size its views pay for a plan every engine makes quickly."""
NULL_CODE = -1
"""The code of a NULL value (or a number no threshold comparison holds for)."""
UNSEEN_CODE = -2
"""The code of a categorical value no split of its attribute names."""
ROUTES = "routes"
"""The parameter table of the routes (module docstring)."""
ROUTE_COLUMNS = ("wml_part", "node", "code", "child", "attribute", "threshold")


def value_codes(roots: Sequence[Node]) -> dict[str, tuple[str, ...]]:
    """Each categorical attribute's values named by any of its splits in the trees ``roots``,
    sorted: a value's code is its position here."""
    found: dict[str, set[str]] = {}
    for node in (n for root in roots for n in root.walk()):
        split = node.split
        if split is not None and split.kind != "threshold":
            found.setdefault(split.attribute, set()).update(v for b in split.values for v in b)
    return {attribute: tuple(sorted(values)) for attribute, values in found.items()}


def _branches(split: Split, codes: tuple[str, ...]) -> list[tuple[int, int]]:
    """(code, branch) for every code a row can take at a node split by ``split``."""
    if split.kind == "threshold":
        return [(0, 0), (1, 1), (NULL_CODE, split.null)]
    branch_of = {v: b for b, values in enumerate(split.values) for v in values}
    listed = [(code, branch_of.get(value, split.other)) for code, value in enumerate(codes)]
    return [*listed, (NULL_CODE, split.null), (UNSEEN_CODE, split.other)]


def route_rows(roots: Sequence[Node], features: Sequence[str]) -> list[tuple[Any, ...]]:
    """The rows of the ``routes`` table (:data:`ROUTE_COLUMNS`, module docstring) of the trees
    ``roots`` (model partition m: ``roots[m]``, its wml_part) over the model's ``features``,
    every tree's values coded alike."""
    codes = value_codes(roots)

    def test(node: Node) -> tuple[int | None, float | None]:
        split = node.split
        return (None, None) if split is None else (features.index(split.attribute), split.threshold)

    rows: list[tuple[Any, ...]] = []
    for part, root in enumerate(roots):
        for node in root.walk():
            if node.split is None:
                rows.append((part, node.id, 0, node.id, None, None))
                continue
            for code, branch in _branches(node.split, codes.get(node.split.attribute, ())):
                child = node.children[branch]
                rows.append((part, node.id, code, child.id, *test(child)))
    return rows


@contextlib.contextmanager
def registered(
    warehouse: Warehouse, rows: Sequence[Sequence[Any]], columns: Sequence[str]
) -> Iterator[TableName]:
    """Python ``rows`` (tuples of ``columns``) as a temporary relation, forgotten on leaving:
    Arrow data, not a VALUES list, whose literals cost seconds of statement building for a
    cross-validation's trees (a column of NULLs only is text)."""
    data = pa.table({c: [r[i] for r in rows] for i, c in enumerate(columns)})
    for i, found in enumerate(data.schema):
        if pa.types.is_null(found.type):
            data = data.set_column(i, found.name, data.column(i).cast(pa.string()))
    name = warehouse.register_arrow(data)
    try:
        yield name
    finally:
        warehouse.unregister(name)


def write_routes(
    warehouse: Warehouse, table: TableName, roots: Sequence[Node], features: Sequence[str]
) -> None:
    """Create the ``routes`` table ``table`` of the trees ``roots`` (:func:`route_rows`)."""
    with registered(warehouse, route_rows(roots, features), ROUTE_COLUMNS) as rows:
        warehouse.run("create_tree_routes", table=table, route_rows=rows)


def _code(split: Split, value: exp.Expression, codes: tuple[str, ...]) -> exp.Expression:
    """The code of a categorical ``value`` (value_of(split)): its position among ``codes``,
    :data:`NULL_CODE` for NULL, :data:`UNSEEN_CODE` for a value not among them."""
    case = exp.case().when(
        exp.Is(this=value.copy(), expression=exp.null()), literal(NULL_CODE), copy=False
    )
    for position, text in enumerate(codes):  # not copied at each WHEN: linear in the values
        test = exp.EQ(this=value.copy(), expression=literal(text))
        case = case.when(test, literal(position), copy=False)
    return case.else_(literal(UNSEEN_CODE), copy=False)


def _side(value: exp.Expression, threshold: exp.Expression) -> exp.Expression:
    """The code of a number ``value`` at a threshold split: 0 for ``value <= threshold``, 1
    for ``value > threshold``, :data:`NULL_CODE` for neither (NULL)."""
    case = exp.case().when(exp.LTE(this=value.copy(), expression=threshold.copy()), literal(0))
    case = case.when(exp.GT(this=value.copy(), expression=threshold.copy()), literal(1))
    return case.else_(literal(NULL_CODE))


def walked_probabilities(
    roots: Sequence[Node],
    features: Sequence[str],
    k: int,
    routes: TableName | exp.Query,
    nodes: TableName | exp.Query,
    value_of: Callable[[Split], exp.Expression],
    partition: str | None = None,
) -> ClassProbabilities:
    """Each class's leaf probability of a scored row ``s``, reached by joining the ``routes``
    table once per level (module docstring); ``nodes`` the tree's nodes table
    (create_tree_nodes.sql), its leaves' probabilities pivoted by class;
    ``value_of(split)`` the row's value a split tests (tree_model.route). ``roots``: the
    model partitions' trees, one for a fitted model (``partition`` None); a
    cross-validation's, one per fold, each row walking its own fold's (the rows of wml_part
    equal to its ``partition`` column).

    Each attribute a split tests is read once per row, first (ClassProbabilities'
    ``derived`` step, column ``wml_c_<position>``): a categorical one as its code, a number
    as ``value_of``; a level's code is then a CASE over the node's attribute of those
    columns (for a number, its side of the node's threshold)."""
    codes = value_codes(roots)
    tests: dict[int, Split] = {}
    for node in (n for root in roots for n in root.walk()):
        if node.split is not None:
            tests.setdefault(features.index(node.split.attribute), node.split)
    derived = [
        alias(
            value_of(split)
            if split.kind == "threshold"
            else _code(split, value_of(split), codes[split.attribute]),
            f"wml_c_{position}",
        )
        for position, split in sorted(tests.items())
    ]
    if partition is not None:  # the joins below read the row's fold from this step's row
        derived.append(alias(column(partition, "s"), partition))

    def code_at(position: int, threshold: exp.Expression) -> exp.Expression:
        value = column(f"wml_c_{position}", "s")
        return _side(value, threshold) if tests[position].kind == "threshold" else value

    def own(name: str, on: exp.Expression) -> exp.Expression:
        """``on``, and for a cross-validation the row's own fold's rows of ``name``."""
        if partition is None:
            return on
        return exp.and_(on, partition_condition(name, partition), copy=False)

    relation = routes.to_table() if isinstance(routes, TableName) else routes
    joins = []
    reached: exp.Expression = literal(0)  # every root's id
    code = per_partition(
        partition,
        [
            None
            if root.split is None
            else code_at(features.index(root.split.attribute), literal(root.split.threshold))
            for root in roots
        ],
        literal(0),
    )
    assert code is not None
    for level in range(1, max(n.depth for root in roots for n in root.walk()) + 1):
        name = f"wml_level_{level}"
        on = exp.and_(
            exp.EQ(this=column("node", name), expression=reached),
            exp.EQ(this=column("code", name), expression=code),
            copy=False,
        )
        joins.append(Join(relation, name, on=own(name, on)))
        reached = column("child", name)
        code = exp.case(column("attribute", name))
        for position in sorted(tests):
            branch = code_at(position, column("threshold", name))
            code = code.when(literal(position), branch, copy=False)
        code = code.else_(literal(0), copy=False)
    leaves = templates.build(
        "select_leaf_probabilities",
        table=nodes,
        class_columns=pivot_columns("leaf_probability", k, "wml_p"),
    )
    on = exp.EQ(this=column("node", "wml_leaf"), expression=reached)
    joins.append(Join(leaves, "wml_leaf", on=own("wml_leaf", on)))
    per_class = [column(f"wml_p_{c}", "wml_leaf") for c in range(k)]
    return ClassProbabilities(per_class, joins, derived)


def feature_value(record: ModelRecord, attribute: str) -> exp.Expression:
    """A feature's value in the scored row ``s``, as counted (features.value_expression)."""
    fitted = record.feature_types[attribute]
    feature = Feature(attribute, fitted["kind"], fitted["sql_type"])
    return value_expression(feature, column(attribute, "s"))


def value_of(record: ModelRecord) -> Callable[[Split], exp.Expression]:
    """The value a split tests in the scored row ``s`` (tree_growth.split_value)."""
    return lambda split: split_value(split, feature_value(record, split.attribute))


def class_probabilities(record: ModelRecord) -> list[exp.Expression]:
    """Each class's probability for a scored row ``s``: the stored tree as a nested CASE whose
    leaves are their probabilities of the class, as literals (tree_model.route); a
    cross-validation's, the CASE of the row's own fold's tree (relations.per_partition)."""
    learned = record.state.learned
    assert isinstance(learned, TreeState)
    tested = value_of(record)
    out = []
    for c in range(len(record.classes)):
        routed = [
            route(tree.root, tested,
                  lambda leaf, c=c, p=tree.probabilities: literal(p[leaf.id][c]))
            for tree in learned.trees
        ]  # fmt: skip
        chosen = per_partition(record.state.partition_column, routed)
        assert chosen is not None
        out.append(chosen)
    return out
