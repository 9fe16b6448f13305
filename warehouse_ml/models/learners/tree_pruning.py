"""Reduced-error pruning of a decision tree (Quinlan 1987), on rows held out of its growth.

The held-out rows are those whose ``key`` (a unique, non-NULL integer or string column) has an
MD5 digest whose first 8 hex digits, read as an integer h in [0, 2^32), satisfy
``h < fraction * 2^32``: ``MD5(CAST(key AS VARCHAR))``, the same rows on every engine
(sql/engines/md5_text.sql, hex_digits_number.sql; Python: ``int(hashlib.md5(str(key)
.encode()).hexdigest()[:8], 16)``). The tree grows on the other rows (its bin edges too).

Pruning, bottom up: the held-out rows are routed down the grown tree to their leaves and
counted per (leaf, class) in one statement (a weighted fit: their summed weights, exact);
a node predicts the class of largest training weight (the first of equal ones; a node
without training weight, its parent's). An inner node whose children have been pruned
becomes a leaf when its held-out errors as a leaf (its held-out weight less that of the
class it predicts) are at most its subtree's (the sum of its children's): the held-out error
does not increase. A node no held-out row reaches is so pruned (0 <= 0).
"""

from __future__ import annotations

import dataclasses
import decimal
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.learners.tree_growth import as_src, split_value
from warehouse_ml.models.learners.tree_model import Node, route
from warehouse_ml.models.learners.tree_splits import EXACT
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import column, literal
from warehouse_ml.stats import counting
from warehouse_ml.stats.features import valued_source

DIGITS = 2**32
"""The held-out test reads 8 hex digits of the key's digest: integers below this."""


def held_out(key: str, fraction: float) -> exp.Expression:
    """Whether a row of ``src`` is held out (module docstring)."""
    digest = templates.expression("md5_text", text=expressions.as_text(column(key, "src")))
    digits = templates.expression("hex_digits_number", digest=digest, first=1)
    return exp.LT(this=digits, expression=literal(int(fraction * DIGITS)))


def _part(training: Training, test: exp.Expression, classes: list[Any]) -> Training:
    """``training`` restricted to the rows passing ``test``, with those ``classes``."""
    rows = exp.select(exp.Star()).from_(as_src(training.source.relation.copy())).where(test)
    source = Source(rows.subquery("wml_rows"), training.source.schema,
                    training.source.description, True)  # fmt: skip
    return dataclasses.replace(training, source=source, classes=[classes])


def split_off(
    warehouse: Warehouse, training: Training, key: str, fraction: float
) -> tuple[Training, Training]:
    """(growing, held-out) parts of ``training`` (one model), each with its own class counts
    (exact rows, or summed weights), one count statement."""
    training.source.field(key)
    test = held_out(key, fraction)
    flag = exp.Case(ifs=[exp.If(this=test, true=literal(1))], default=literal(0))
    query = (
        exp.select(
            templates.alias(flag, "held"),
            templates.alias(expressions.as_text(column(training.target, "src")), "label"),
            templates.alias(counting.row_count(training.weight), "n"),
        )
        .from_(as_src(training.source.relation.copy()))
        .where(exp.Not(this=exp.Is(this=column(training.target, "src"), expression=exp.null())))
        .group_by(flag.copy(), column(training.target, "src"))
    )
    found = {(r["held"], r["label"]): r["n"] for r in warehouse.fetch_tree(query).to_pylist()}
    parts = []
    for held in (0, 1):
        classes = [
            dataclasses.replace(c, n=found.get((held, c.label), 0), rows=None)
            for c in training.classes[0]
        ]
        parts.append(_part(training, test if held else exp.Not(this=test.copy()), classes))
    return parts[0], parts[1]


def leaf_counts(warehouse: Warehouse, held: Training, root: Node) -> dict[int, list[Any]]:
    """Each leaf's held-out class counts (exact: integers or Decimal summed weights), for the
    leaves held-out rows reach."""
    relation = valued_source(held.source.relation, held.carried, held.features)
    leaf = route(
        root, lambda s: split_value(s, column(s.attribute, "src")), lambda n: literal(n.id)
    )
    assert leaf is not None
    target = column(held.target, "src")
    query = (
        exp.select(
            templates.alias(leaf, "node"),
            templates.alias(expressions.as_text(target), "label"),
            templates.alias(counting.row_count(held.weight), "n"),
        )
        .from_(as_src(relation))
        .where(exp.Not(this=exp.Is(this=target.copy(), expression=exp.null())))
        .group_by(leaf.copy(), target.copy())
    )
    index = {c.label: c.index for c in held.classes[0]}
    out: dict[int, list[Any]] = {}
    for r in warehouse.fetch_tree(query).to_pylist():
        out.setdefault(r["node"], [0] * len(index))[index[r["label"]]] = r["n"]
    return out


def prune_reduced_error(root: Node, held: dict[int, list[Any]]) -> None:
    """Prune ``root`` in place given its leaves' held-out class counts (module docstring)."""
    k = len(root.counts)

    def predicted(node: Node, inherited: int) -> int:
        if sum(node.counts) <= 0:
            return inherited
        return max(range(k), key=lambda c: (node.counts[c], -c))

    def visit(node: Node, inherited: int) -> tuple[Any, list[Any]]:
        """(held-out errors of the pruned subtree, held-out class counts at the node)."""
        label = predicted(node, inherited)
        if node.split is None:
            reached = held.get(node.id, [0] * k)
            return sum(reached) - reached[label], reached
        errors: Any = 0
        reached = [0] * k
        for child in node.children:
            e, r = visit(child, label)
            errors += e
            reached = [a + b for a, b in zip(reached, r, strict=True)]
        as_leaf = sum(reached) - reached[label]
        if as_leaf <= errors:
            node.split, node.children = None, []
            return as_leaf, reached
        return errors, reached

    with decimal.localcontext(EXACT):
        visit(root, 0)
