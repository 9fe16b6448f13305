"""Dense lookup of integer-coded attributes: scoring by one INNER join on an integer per
attribute, instead of a LEFT join on the value's text plus a CROSS join for its unseen value.

A Naive Bayes model whose integer attribute takes the contiguous values low..high in training
(the usual 0..k-1 or 1..k codes) also stores ``wml.<model_id>_lookup`` (sql/create_nb_lookup.sql):
one row per code, with the class log-probabilities ``lp_0 .. lp_{K-1}``. The attribute owns the
codes ``first_code .. first_code + high - low + 2``: its seen values, then one code for any
unseen value and one for NULL (which contributes log 1 = 0). Every scored row therefore finds a
row, so the join can be INNER, which DuckDB runs as a perfect-hash join over the code range
(4-5 times cheaper per attribute than the LEFT join on text, measured on 1M rows x 20 codes).
Parameter tables that hold one model per partition (cross-validation folds) shift partition
p's codes by ``p * width``. The layout ``{attribute: [first_code, low, high]}`` is stored in the
model's catalog details (key ``lookup``). Attributes with gaps keep the text join.

A TAN model does the same per (value, parent value) (sql/create_tan_lookup.sql,
:func:`learn_tan`): an attribute's block holds ``stride`` parent slots per value slot, and each
code's row is already what TAN scoring gives it (the conditional term, or its class-only
fallback for a NULL or unseen parent value), so the attribute costs one INNER join on
``first_code + value slot * stride + parent slot``. With one tree per partition
(cross-validation folds), the parent's slot is chosen per row by a CASE over its partition.
The layout is ``{attribute: [first_code, low, high, stride]}``. Scoring 1M rows x 20 codes:
0.18 s, against 1.6-3.3 s for the text joins on (value, parent value).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlglot import exp

from warehouse_ml import templates
from warehouse_ml.catalog import ModelRecord, parameter_table
from warehouse_ml.features import CATEGORICAL, INTEGER_TYPES, Feature
from warehouse_ml.scoring import PARTITION, Join, Term, per_partition, pivot_columns
from warehouse_ml.templates import column, literal
from warehouse_ml.warehouse import Warehouse

Layout = dict[str, list[int]]
"""``{attribute: [first_code, low, high]}``, attributes in feature order."""


def integer_coded(sql_type: str) -> bool:
    """Whether a fitted column holds integers that fit BIGINT (every integer type but uint64)."""
    return sql_type.startswith(INTEGER_TYPES) and sql_type != "uint64"


def width(layout: Layout) -> int:
    """Codes used by one model (partition): each attribute's values, unseen and NULL slots."""
    return sum(high - low + 3 for _, low, high in layout.values())


def contiguous_ranges(
    warehouse: Warehouse, model_id: str, features: Sequence[Feature]
) -> dict[str, tuple[int, int]]:
    """``{attribute: (low, high)}`` of each integer-coded categorical feature whose seen values
    (in the categorical table of ``model_id``, across its partitions if it has several) are
    the contiguous low..high, in feature order."""
    attributes = [f.name for f in features if f.kind == CATEGORICAL and integer_coded(f.sql_type)]
    if not attributes:
        return {}
    ranges = warehouse.fetch(
        "select_value_ranges",
        categorical=parameter_table(model_id, "categorical"),
        attributes=templates.values([(a,) for a in attributes], "a", ("attribute",)),
    )
    found = {
        r["attribute"]: (r["low"], r["high"])
        for r in ranges.to_pylist()
        if r["n_values"] == r["high"] - r["low"] + 1
    }
    return {a: found[a] for a in attributes if a in found}


def layout(warehouse: Warehouse, model_id: str, features: Sequence[Feature]) -> Layout:
    """Place each integer-coded categorical feature whose seen values are contiguous
    (:func:`contiguous_ranges`). Empty when none is."""
    contiguous = contiguous_ranges(warehouse, model_id, features)
    placed: Layout = {}
    first_code = 0
    for attribute, (low, high) in contiguous.items():
        placed[attribute] = [first_code, low, high]
        first_code += high - low + 3
    return placed


def learn(
    warehouse: Warehouse,
    model_id: str,
    features: Sequence[Feature],
    n_classes: int,
    parts: list[str],
    partitioned: bool = False,
) -> dict[str, Layout]:
    """Lay out the integer-coded features of model ``model_id`` and write its lookup table
    when any qualifies (appending part ``lookup`` to ``parts`` first). Returns the catalog
    details ``{"lookup": layout}`` (an empty layout when none qualifies)."""
    placed = layout(warehouse, model_id, features)
    if placed:
        parts.append("lookup")
        create_table(warehouse, model_id, placed, n_classes, partitioned)
    return {"lookup": placed}


def _part(alias: str, partitioned: bool) -> exp.Expression:
    """The model part of a parameter table's row: its wml_part column, or 0 (one model)."""
    return column(PARTITION, alias) if partitioned else literal(0)


def create_table(
    warehouse: Warehouse,
    model_id: str,
    placed: Layout,
    n_classes: int,
    partitioned: bool = False,
) -> None:
    """Write ``wml.<model_id>_lookup`` (code BIGINT, lp_0 .. lp_{K-1} DOUBLE) from the model's
    categorical, unseen and classes tables (``partitioned``: tables with a wml_part column)."""

    def part(alias: str) -> exp.Expression:
        return _part(alias, partitioned)

    warehouse.run(
        "create_nb_lookup",
        table=parameter_table(model_id, "lookup"),
        categorical=parameter_table(model_id, "categorical"),
        unseen=parameter_table(model_id, "unseen"),
        classes=parameter_table(model_id, "classes"),
        layout=templates.values(
            [(attribute, low, high, first) for attribute, (first, low, high) in placed.items()],
            "l",
            ("attribute", "low", "high", "first_code"),
        ),
        width=width(placed),
        categorical_part=part("k"),
        unseen_part=part("u"),
        classes_part=part("c"),
        class_columns=pivot_columns("log_prob", n_classes, "lp"),
    )


def lookup_term(
    record: ModelRecord, attribute: str, name: str, k: int, partition: str | None = None
) -> Term:
    """log P(attribute value | c) from the model's lookup table: one INNER join on the code
    of the scored row's value (shifted to its own model when the scored rows carry a
    ``partition`` column)."""
    placed = record.details["lookup"]
    first_code, low, high = placed[attribute]
    code = templates.expression(
        "lookup_code",
        value=column(attribute, "s"),
        low=low,
        high=high,
        first_code=first_code,
        unseen_slot=high - low + 1,
        null_slot=high - low + 2,
    )
    if partition is not None:
        shift = exp.Mul(
            this=exp.cast(column(partition, "s"), exp.DataType.Type.BIGINT),
            expression=literal(width(placed)),
        )
        code = exp.Add(this=shift, expression=code)
    join = Join(
        record.table("lookup").to_table(),
        name,
        on=exp.EQ(this=column("code", name), expression=code),
        inner=True,
    )
    return Term([column(f"lp_{c}", name) for c in range(k)], [join])


# -- TAN: codes for (value, parent value) ----------------------------------------------------
TAN_LAYOUT_COLUMNS = (
    "wml_part", "attribute", "parent", "low", "high", "parent_low", "parent_high", "first_code",
    "stride",
)  # fmt: skip
"""Columns of the ``$layout`` relation of sql/create_tan_lookup.sql."""


def tan_layout(
    contiguous: dict[str, tuple[int, int]], parents: Sequence[Mapping[str, str | None]]
) -> Layout:
    """``{attribute: [first_code, low, high, stride]}`` of a TAN model with one tree per part
    (``parents[p]``: each attribute's parent in part p, None at the root).

    An attribute is placed when its values are contiguous (``contiguous``, as
    :func:`contiguous_ranges`) and so are those of its parent in every part, which is placed
    too; the others keep the text join. Its block holds ``high - low + 3`` value slots of
    ``stride`` parent slots each: one per seen value of the widest parent, plus one for a NULL
    or unseen parent value (stride 1 when it is the root in every part).
    """
    placed = dict(contiguous)
    while True:
        kept = {
            a: span
            for a, span in placed.items()
            if all(p[a] is None or p[a] in placed for p in parents)
        }
        if len(kept) == len(placed):
            break
        placed = kept
    result: Layout = {}
    first_code = 0
    for attribute, (low, high) in placed.items():
        chosen = {p[attribute] for p in parents} - {None}
        stride = 1 + max((placed[q][1] - placed[q][0] + 1 for q in chosen), default=0)
        result[attribute] = [first_code, low, high, stride]
        first_code += (high - low + 3) * stride
    return result


def tan_width(placed: Layout) -> int:
    """Codes used by one part of a TAN lookup table (:func:`tan_layout`)."""
    return sum((high - low + 3) * stride for _, low, high, stride in placed.values())


def learn_tan(
    warehouse: Warehouse,
    model_id: str,
    features: Sequence[Feature],
    n_classes: int,
    parents: Sequence[Mapping[str, str | None]],
    parts: list[str],
    partitioned: bool = False,
) -> dict[str, Layout]:
    """Lay out the integer-coded attributes of TAN model ``model_id`` (one tree per part,
    ``parents``; the tables have a wml_part column when ``partitioned``) and write its lookup
    table (sql/create_tan_lookup.sql) when any is placed, appending part ``lookup`` to
    ``parts`` first. Returns the catalog details ``{"lookup": layout}``."""
    placed = tan_layout(contiguous_ranges(warehouse, model_id, features), parents)
    if not placed:
        return {"lookup": placed}
    rows = []
    for index, tree in enumerate(parents):
        for attribute, (first_code, low, high, stride) in placed.items():
            parent = tree[attribute]
            parent_low, parent_high = (None, None) if parent is None else placed[parent][1:3]
            rows.append(
                (index, attribute, parent, low, high, parent_low, parent_high, first_code, stride)
            )
    parts.append("lookup")
    warehouse.run(
        "create_tan_lookup",
        table=parameter_table(model_id, "lookup"),
        categorical=parameter_table(model_id, "categorical"),
        unseen=parameter_table(model_id, "unseen"),
        cpt=parameter_table(model_id, "cpt"),
        classes=parameter_table(model_id, "classes"),
        layout=templates.values(rows, "l", TAN_LAYOUT_COLUMNS),
        width=tan_width(placed),
        categorical_part=_part("k", partitioned),
        unseen_part=_part("u", partitioned),
        cpt_part=_part("t", partitioned),
        classes_part=_part("c", partitioned),
        class_columns=pivot_columns("log_prob", n_classes, "lp"),
    )
    return {"lookup": placed}


def _slot(value: exp.Expression, low: int, high: int, null_slot: int) -> exp.Expression:
    """value - low within low..high, high - low + 1 for any other value, ``null_slot`` for NULL
    (sql/lookup_code.sql from code 0)."""
    return templates.expression(
        "lookup_code",
        value=value,
        low=low,
        high=high,
        first_code=0,
        unseen_slot=high - low + 1,
        null_slot=null_slot,
    )


def tan_term(
    record: ModelRecord,
    attribute: str,
    name: str,
    k: int,
    parents: Sequence[str | None],
    partition: str | None = None,
) -> Term:
    """TAN's term of ``attribute`` (log P(value | c, parent value), its fallbacks included) from
    the model's lookup table: one INNER join on the code of the scored row's value and its
    parent's value (``parents[p]``: the parent in part p, the row's own part when the scored
    rows carry a ``partition`` column; see :func:`tan_layout`)."""
    placed = record.details["lookup"]
    first_code, low, high, stride = placed[attribute]
    code: exp.Expression = exp.Add(
        this=literal(first_code),
        expression=exp.Mul(
            this=_slot(column(attribute, "s"), low, high, high - low + 2),
            expression=literal(stride),
        ),
    )

    def parent_slot(parent: str | None) -> exp.Expression | None:
        if parent is None:
            return None
        _, parent_low, parent_high, _ = placed[parent]
        return _slot(column(parent, "s"), parent_low, parent_high, parent_high - parent_low + 1)

    if any(parent is not None for parent in parents):
        chosen = per_partition(partition, [parent_slot(p) for p in parents], default=literal(0))
        code = exp.Add(this=code, expression=exp.paren(chosen, copy=False))
    if partition is not None:
        shift = exp.Mul(
            this=exp.cast(column(partition, "s"), exp.DataType.Type.BIGINT),
            expression=literal(tan_width(placed)),
        )
        code = exp.Add(this=shift, expression=code)
    join = Join(
        record.table("lookup").to_table(),
        name,
        on=exp.EQ(this=column("code", name), expression=code),
        inner=True,
    )
    return Term([column(f"lp_{c}", name) for c in range(k)], [join])
