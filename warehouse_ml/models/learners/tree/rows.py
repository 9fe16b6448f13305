"""The rows every tree of a training counts, and the numeric bins they count on, for one tree
(a fit) or every cross-validation fold's tree at once.

A training's models (models/training.py: one for a fit; for cross-validation, model f learns
from the rows outside fold f) each grow their own tree. A row's node in model m's tree is that
tree's nested CASE (tree_model.route); a statement that counts nodes reads each row once and
computes its node in every model's tree (:func:`node_rows`: one column per model, NULL for
the model that holds the row's fold out). An attribute's counts (:func:`node_counts`) group
the rows by (nodes in every tree, value, class) first, then give each group to every model
(a CROSS JOIN with the models' numbers) under its node there, keyed by :func:`node_key` (the
node and its model in one integer), and sum: where the folds' trees agree (their first
levels), the groups are few, so the rows are not multiplied by the folds. A level of every
fold's tree is one count statement.

Numeric bins: each model cuts its own equal-frequency edges on its training rows
(edges.py). The row is binned once on the union of every model's edges (:class:`Grid`,
by a balanced nested CASE: a comparison per halving), and the counts of each model's node
are summed in Arrow from the union's bins to the model's own (:meth:`Grid.own_bins`): a
model's edges are among the union's, so each union bin lies in one bin of the model, and the
sums are the counts that model's own edges give, exact (integer rows, DECIMAL summed
weights).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from warehouse_ml.models.learners.tree import splits as tree_splits
from warehouse_ml.models.learners.tree.model import Node, Split, route
from warehouse_ml.models.scoring import names
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats import counting
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.features import valued_source

Edges = Mapping[str, Sequence[float]]
"""A model's equal-frequency edges of each numeric attribute (edges.py)."""


def node_key(node: Node, model: int, n_models: int) -> int:
    """The integer naming ``node`` of model ``model``'s tree among every model's nodes."""
    return node.id * n_models + model


def as_src(relation: exp.Expression) -> exp.Subquery:
    """``relation`` (a table, an aliased query or a query) as the subquery ``src``."""
    named = isinstance(relation, (exp.Table, exp.Subquery))
    return (exp.select(exp.Star()).from_(relation) if named else relation).subquery("src")


def node_rows(
    training: Training,
    roots: Sequence[Node],
    leaf: Callable[[Node, int], exp.Expression | None],
    computed: Mapping[str, exp.Expression],
    kept: Sequence[str],
) -> tuple[exp.Query, list[str]]:
    """The rows of ``training`` (features as counted: features.valued_source), each once, with
    the ``kept`` columns of the source, each ``computed`` expression over the row ``src`` under
    its name (taken as it is, not copied), and its node in every model's tree, one column per
    model (their names are returned with the query): ``leaf(node, m)`` of the node
    ``roots[m]``'s CASE takes it to, NULL where that is None or where the row does not count
    for model m (the training's members: model m holds the row's fold out, or the row is
    another member's). Rows no model counts are left out."""
    relation = valued_source(training.source.relation, training.carried, training.features)
    taken = [*training.source.columns, *computed]
    per_model = [names.fresh(f"wml_node_{m}", taken) for m in range(len(roots))]
    routed = []
    for m, root in enumerate(roots):
        node = route(root, lambda s: split_value(s, column(s.attribute, "src")),
                     lambda n, m=m: leaf(n, m))  # fmt: skip
        if node is None:  # typed: a NULL alone is text to PostgreSQL, COALESCEd with integers
            node = exp.cast(exp.null(), exp.DataType.Type.INT)
        if training.partition is not None:  # only for the models the row counts for
            counted = training.members.counted(column(training.partition, "src"), literal(m))
            node = exp.Case(ifs=[exp.If(this=counted, true=node)])
        routed.append(node)
    inner = exp.select(
        *(column(c, "src") for c in kept),
        *(alias(e, n, copy=False) for n, e in computed.items()),
        *(alias(r, n, copy=False) for r, n in zip(routed, per_model, strict=True)), copy=False,
    ).from_(as_src(relation), copy=False)  # fmt: skip
    counted = exp.Coalesce(
        this=column(per_model[0]), expressions=[column(n) for n in per_model[1:]]
    )
    rows = (
        exp.select(exp.Star())
        .from_(inner.subquery("wml_nodes", copy=False), copy=False)
        .where(exp.Not(this=exp.Is(this=counted, expression=exp.null())), copy=False)
    )
    return rows, per_model


def model_nodes(per_model: Sequence[str], table: str) -> tuple[exp.Values, exp.Expression]:
    """The models' numbers (``VALUES m(wml_model)``) and a row of ``table``'s node in model
    ``m.wml_model``'s tree: ``CASE m.wml_model WHEN 0 THEN <table>.<per_model[0]> ... END``."""
    numbers = templates.values([(m,) for m in range(len(per_model))], "m", ("wml_model",))
    node = exp.case(column("wml_model", "m"))
    for m, name in enumerate(per_model):
        node = node.when(literal(m), column(name, table), copy=False)
    return numbers, node


def node_counts(
    training: Training,
    rows: exp.Expression,
    per_model: Sequence[str],
    attribute: str,
    value: exp.Expression,
) -> exp.Query:
    """One attribute's counts per (node key, value, class) of every model's tree
    (select_tree_node_counts.sql) from ``rows`` (:func:`node_rows`, with its node columns
    ``per_model``), ``value`` an expression over the row ``src``. Output columns: wml_part
    (the node key), attribute, value (text), class_label (text), n (exact: BIGINT rows, read
    as int64, which numpy sums natively; or DECIMAL summed weights), n_rows (BIGINT rows of
    positive weight: :func:`positive_rows`)."""
    numbers, node = model_nodes(per_model, "h")
    return templates.build(
        "select_tree_node_counts", rows=rows, paths=[alias(column(n, "src"), n) for n in per_model],
        path_group=[column(n, "src") for n in per_model], value=value, target=training.target,
        count=counting.row_count(training.weight), rows_count=positive_rows(training.weight),
        attribute=attribute, models=numbers, node=node,
        sum_type=exp.DataType.build("BIGINT") if training.weight is None
        else counting.WEIGHT_SUM_TYPE,
    )  # fmt: skip


def positive_rows(weight: str | None) -> exp.Expression:
    """The rows of ``src`` a tree's row thresholds count: ``COUNT(*)``, or for a weighted fit
    the rows whose weight column ``weight`` is positive (positive_weight_row.sql; a row of
    weight 0 is no row, as for scikit-learn)."""
    if weight is None:
        return exp.Count(this=exp.Star())
    return exp.Sum(this=templates.expression("positive_weight_row", weight=column(weight, "src")))


def split_value(split: Split, value: exp.Expression) -> exp.Expression:
    """The row's value a split tests (tree_model.route): ``CAST(x AS DOUBLE)`` for a
    threshold, the value as text otherwise (as counted and stored)."""
    if split.kind == tree_splits.THRESHOLD:
        return expressions.as_double(value)
    return expressions.as_text(value)


def searched_bin(x: exp.Expression, boundaries: Sequence[float]) -> exp.Expression:
    """The index of the first boundary ``x <= b`` (``len(boundaries)`` above them all; NULL
    for NULL): a balanced nested CASE, one comparison per halving of the boundaries. The same
    index as binning.bin_expression of edges whose all but last are the boundaries."""

    def within(low: int, high: int) -> exp.Expression:
        if low == high:
            return literal(low)
        middle = (low + high) // 2
        test = exp.LTE(this=x.copy(), expression=literal(float(boundaries[middle])))
        return exp.Case(
            ifs=[exp.If(this=test, true=within(low, middle))], default=within(middle + 1, high)
        )

    null = exp.Is(this=x.copy(), expression=exp.null())
    return exp.Case(
        ifs=[exp.If(this=null, true=exp.cast(exp.null(), exp.DataType.Type.INT))],
        default=within(0, len(boundaries)),
    )


@dataclass(frozen=True)
class Grid:
    """The numeric attributes' bins of every model at once (module docstring): ``boundaries``
    each attribute's union of the models' edges but their last (sorted), ``own`` each model's
    bin of each union bin, per attribute, and ``searched`` each attribute's union bin of the
    row ``src`` (:func:`searched_bin`)."""

    boundaries: dict[str, list[float]]
    own: list[dict[str, np.ndarray]]
    searched: dict[str, exp.Expression]

    @classmethod
    def of(cls, edges: Sequence[Edges]) -> Grid:
        """The grid of the models' ``edges`` (one mapping per model)."""
        attributes = sorted({a for model in edges for a in model})
        boundaries = {
            a: sorted({float(e) for model in edges for e in list(model.get(a, ()))[:-1]})
            for a in attributes
        }
        own = [
            {
                a: np.array(
                    [bisect.bisect_left(list(model.get(a, ()))[:-1], b) for b in bounds]
                    + [max(len(model.get(a, ())) - 1, 0)],
                    dtype=np.int64,
                )
                for a, bounds in boundaries.items()
            }
            for model in edges
        ]
        searched = {
            a: searched_bin(expressions.as_double(column(a, "src")), bounds)
            for a, bounds in boundaries.items()
        }
        return cls(boundaries, own, searched)

    def value(self, attribute: str) -> exp.Expression:
        """The union bin of ``attribute``'s number in the row ``src`` (:func:`searched_bin`),
        built once for every level: each level's statement takes it as it is (its previous
        statement is done with)."""
        return self.searched[attribute]

    def own_bins(self, table: pa.Table, attributes: Sequence[str], n_models: int) -> pa.Table:
        """A level's counts (wml_part the node key, attribute, value, class_label, n, n_rows)
        with each numeric attribute's union bins replaced by the node's model's own bins,
        summed."""
        numeric = pc.is_in(table["attribute"], pa.array(list(self.boundaries), pa.string()))
        if not pc.any(numeric).as_py():
            return table
        binned = table.filter(numeric)
        model = binned[PARTITION].to_numpy() % n_models
        position = pc.index_in(binned["attribute"], pa.array(list(attributes))).to_numpy()
        union = pc.cast(binned["value"], pa.int64()).to_numpy()
        blocks = [
            self.own[m].get(a, np.zeros(1, np.int64)) for m in range(n_models) for a in attributes
        ]
        starts = np.cumsum([0, *(len(b) for b in blocks[:-1])])
        own = np.concatenate(blocks)[starts[model * len(attributes) + position] + union]
        binned = binned.set_column(
            binned.schema.get_field_index("value"), "value", pa.array(own.astype(str))
        )
        keys = [PARTITION, "attribute", "value", "class_label"]
        sums = [("n", "sum"), ("n_rows", "sum")]
        summed = binned.group_by(keys, use_threads=False).aggregate(sums)
        summed = summed.rename_columns([*keys, "n", "n_rows"]).select(table.column_names)
        return pa.concat_tables([table.filter(pc.invert(numeric)), summed.cast(table.schema)])
