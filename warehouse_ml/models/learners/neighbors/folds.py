"""Cross-validated errors of k nearest neighbours for several k from ONE ranked neighbour
table (evaluation/k_nearest_selection.py's ``select_k``).

Each fold f's model is what a fit on the rows outside f stores (k_nearest_neighbors.py): its
design learned on those rows, its stored rows (model f of one staged table) keyed in the order
of their stored values. Every held-out row is written once with its fold, its class and its
coordinates under its fold's design; one join of the held-out rows to the stored rows of their
fold ranks each row's k_max nearest (the model's search, so the tie rule is the model's). Every
k <= k_max then reads that table: its votes are those of ranks <= k, its prediction the class
of most votes (ties to the first class, as predictions decide), so each k's error is the error
of cross-validating ``KNearestNeighbors(k=k)`` on the same folds without k fits and k searches.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.learners.neighbors.columns import RANK, ROW_ID, coordinate
from warehouse_ml.models.learners.neighbors.k_nearest_neighbors import (
    KNearestNeighbors,
    stored_rows,
)
from warehouse_ml.models.learners.neighbors.search import search_for
from warehouse_ml.models.learners.shared.design import Design
from warehouse_ml.models.scoring.decision import score_column
from warehouse_ml.models.scoring.steps import first_where, greatest
from warehouse_ml.models.training import FoldedRows, Training
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.ownership import Staging

TRUTH, K = "wml_y", "wml_k"


def _fold_rows(split: Source, fold: str, index: int, held_out: bool) -> exp.Select:
    """The rows of fold ``index`` (``held_out``) or of every other fold, as ``s``."""
    test = exp.EQ if held_out else exp.NEQ
    return (
        exp.select(exp.Star())
        .from_(split.relation.copy())
        .where(test(this=column(fold), expression=literal(index)))
    )


def fold_errors(
    warehouse: Warehouse, folded: FoldedRows, ks: Sequence[int], model: KNearestNeighbors,
    tables: Staging, check: CardinalityCheck,
) -> dict[int, float]:  # fmt: skip
    """The cross-validated error (the share of labelled held-out rows predicted wrong) of
    ``model`` (its settings; its k the largest of ``ks``) with each k of ``ks`` on the
    ``folded`` rows (module docstring)."""
    split, fold, n_folds = folded.rows, folded.fold, folded.folds
    target, features, classes = folded.target, folded.features, folded.classes
    stored, held = [], []
    for f in range(n_folds):
        outside = _fold_rows(split, fold, f, held_out=False).subquery("wml_training")
        training = Training(
            Source(outside, split.schema, split.description, True),
            target, list(features), [list(classes)],
        )  # fmt: skip
        design = Design.learn(warehouse, training, check)
        stored.append(stored_rows(design, training, part=f))
        inside = Source(
            _fold_rows(split, fold, f, held_out=True).subquery("s"),
            split.schema, split.description, True,
        )  # fmt: skip
        truth = exp.Case(this=expressions.as_text(column(target, "s")))
        for c in classes:
            truth.when(literal(c.label), literal(c.index), copy=False)
        held.append(
            exp.select(
                alias(literal(f), PARTITION),
                alias(truth, TRUTH),
                *(alias(v, coordinate(i)) for i, v in enumerate(design.values(inside))),
            )
            .from_(inside.relation)
            .where(exp.Not(this=exp.Is(this=column(target, "s"), expression=exp.null())))
        )
    stored_table, held_table = tables.table("stored"), tables.table("held")
    warehouse.run_tree(templates.create_table_as(stored_table, templates.union_all(stored)))
    numbered = exp.select(alias(exp.Window(this=exp.RowNumber()), ROW_ID), exp.Star()).from_(
        templates.union_all(held).subquery("h")
    )
    warehouse.run_tree(templates.create_table_as(held_table, numbered))
    grouped = [ROW_ID, TRUTH]
    ranked_table = tables.table("ranked")
    neighbours = model.neighbour_search(
        features,
        exp.select(exp.Star()).from_(stored_table.to_table()),
        search_for(warehouse),
        on=exp.EQ(this=column(PARTITION, "q"), expression=column(PARTITION, "t")),
    )
    ranked = neighbours.ranked(exp.select(exp.Star()).from_(held_table.to_table()), grouped)
    warehouse.run_tree(templates.create_table_as(ranked_table, ranked))
    every_k = templates.values([(k,) for k in ks], "ks", (K,))
    ranked_k = (
        exp.select(
            alias(column(K, "ks"), K), exp.Column(this=exp.Star(), table=exp.to_identifier("r"))
        )
        .from_(ranked_table.to_table().as_("r"))
        .join(every_k, on=exp.LTE(this=column(RANK, "r"), expression=column(K, "ks")))
    )
    voted = model.neighbour_votes(len(classes)).of(ranked_k, [K, *grouped], [K, TRUTH])
    scores = [column(score_column(c)) for c in range(len(classes))]
    best = greatest(scores)
    predicted = first_where(
        [exp.EQ(this=s.copy(), expression=best.copy()) for s in scores],
        [literal(c) for c in range(len(classes))],
    )
    wrong = (
        exp.case()
        .when(exp.EQ(this=predicted, expression=column(TRUTH)), literal(0.0))
        .else_(literal(1.0))
    )
    errors = (
        exp.select(alias(column(K), K), alias(exp.Avg(this=wrong), "error"))
        .from_(voted.subquery("v"))
        .group_by(column(K))
    )
    return {r[K]: r["error"] for r in warehouse.fetch_tree(errors).to_pylist()}
