"""Reduced-error pruning of a decision tree (Quinlan 1987), on rows held out of its growth.

The held-out rows are those whose ``key`` (a unique, non-NULL integer or string column) has an
MD5 digest whose first 8 hex digits, read as an integer h in [0, 2^32), satisfy
``h < fraction * 2^32``: ``MD5(CAST(key AS VARCHAR))``, the same rows on every engine
(warehouse_ml/sql/engines/md5_text.sql, hex_digits_number.sql; Python: ``int(hashlib.md5(str(key)
.encode()).hexdigest()[:8], 16)``). The tree grows on the other rows (its bin edges too).

Pruning, bottom up: the held-out rows are routed down the grown tree to their leaves and
counted per (leaf, class) in one statement (a weighted fit: their summed weights, exact);
a node predicts the class of largest training weight (the first of equal ones; a node
without training weight, its parent's). An inner node whose children have been pruned
becomes a leaf when its held-out errors as a leaf (its held-out weight less that of the
class it predicts) are at most its subtree's (the sum of its children's): the held-out error
does not increase. A node no held-out row reaches is so pruned (0 <= 0).

Cross-validation holds out by the same test within each fold's training rows, and routes the
held-out rows down every fold's tree in one statement (tree_rows.model_rows).
"""

from __future__ import annotations

import dataclasses
import decimal
from typing import Any

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.learners.tree.model import Node
from warehouse_ml.models.learners.tree.rows import as_src, node_counts, node_key, node_rows
from warehouse_ml.models.learners.tree.splits import EXACT
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import column, literal
from warehouse_ml.stats import counting, keys
from warehouse_ml.stats.counting import PARTITION

DIGITS = 2**32
"""The held-out test reads 8 hex digits of the key's digest: integers below this."""


def held_out(key: str, fraction: float) -> exp.Expression:
    """Whether a row of ``src`` is held out (module docstring)."""
    digest = templates.expression("md5_text", text=expressions.as_text(column(key, "src")))
    digits = templates.expression("hex_digits_number", digest=digest, first=1)
    return exp.LT(this=digits, expression=literal(int(fraction * DIGITS)))


def _part(training: Training, test: exp.Expression, classes: list[list[Any]]) -> Training:
    """``training`` restricted to the rows passing ``test``, each model with its ``classes``."""
    rows = exp.select(exp.Star()).from_(as_src(training.source.relation.copy())).where(test)
    source = Source(rows.subquery("wml_rows"), training.source.schema,
                    training.source.description, True)  # fmt: skip
    return dataclasses.replace(training, source=source, classes=classes)


def split_off(
    warehouse: Warehouse, training: Training, key: str, fraction: float
) -> tuple[Training, Training]:
    """(growing, held-out) parts of ``training``, each model with its own class counts (exact
    rows, or summed weights, and the rows: a cross-validation fold's are those of the rows
    outside it), one count statement, after checking ``key`` by stats/keys.py's rule on the
    labelled rows."""
    labelled = exp.select(exp.Star()).from_(as_src(training.source.relation.copy()))
    labelled = labelled.where(
        exp.Not(this=exp.Is(this=column(training.target, "src"), expression=exp.null()))
    )
    keys.check_key(
        warehouse, training.source, key, "the rows reduced-error pruning holds out",
        rows=labelled.subquery("wml_labelled"), target=training.target,
        features=[f.name for f in training.features],
    )  # fmt: skip
    test = held_out(key, fraction)
    flag = exp.Case(ifs=[exp.If(this=test, true=literal(1))], default=literal(0))
    fold = (
        exp.cast(literal(-1), exp.DataType.Type.INT)  # not a GROUP BY position
        if training.fold_column is None
        else column(training.fold_column, "src")
    )  # a fit's one model learns from every row: from fold -1's
    query = (
        exp.select(
            templates.alias(flag, "held"),
            templates.alias(fold, "fold"),
            templates.alias(expressions.as_text(column(training.target, "src")), "label"),
            templates.alias(counting.row_count(training.weight), "n"),
            templates.alias(exp.Count(this=exp.Star()), "n_rows"),
        )
        .from_(as_src(training.source.relation.copy()))
        .where(exp.Not(this=exp.Is(this=column(training.target, "src"), expression=exp.null())))
        .group_by(flag.copy(), fold.copy(), column(training.target, "src"))
    )
    found = warehouse.fetch_tree(query).to_pylist()
    parts = []
    with decimal.localcontext(EXACT):
        for held in (0, 1):
            classes = []
            for m, model in enumerate(training.classes):
                n = {c.label: 0 for c in model}
                rows = dict.fromkeys(n, 0)
                for r in found:
                    if r["held"] == held and r["fold"] != m:
                        n[r["label"]] += r["n"]
                        rows[r["label"]] += r["n_rows"]
                classes.append(
                    [dataclasses.replace(c, n=n[c.label], rows=rows[c.label]) for c in model]
                )
            parts.append(_part(training, test if held else exp.Not(this=test.copy()), classes))
    return parts[0], parts[1]


def leaf_counts(
    warehouse: Warehouse, held: Training, roots: list[Node]
) -> list[dict[int, list[Any]]]:
    """Each model's leaves' held-out class counts (exact: integers or Decimal summed weights),
    for the leaves held-out rows reach: one statement for every model's tree."""
    n_models = len(roots)
    kept = [held.target, *([held.weight] if held.weight else [])]
    rows, per_model = node_rows(
        held, roots, lambda n, m: literal(node_key(n, m, n_models)), {}, kept
    )
    query = node_counts(
        held, rows.subquery("wml_held"), per_model, held.target, column(held.target, "src")
    )
    index = {c.label: c.index for c in held.classes[0]}
    out: list[dict[int, list[Any]]] = [{} for _ in roots]
    for r in warehouse.fetch_tree(query).to_pylist():
        key = r[PARTITION]
        counts = out[key % n_models].setdefault(key // n_models, [0] * len(index))
        counts[index[r["class_label"]]] = r["n"]
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
