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
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from warehouse_ml import templates
from warehouse_ml.catalog import ModelRecord, parameter_table
from warehouse_ml.counting import partition_or_zero
from warehouse_ml.features import CATEGORICAL, INTEGER_TYPES, Feature
from warehouse_ml.scoring import Join, Term, pivot_columns
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


def layout(warehouse: Warehouse, model_id: str, features: Sequence[Feature]) -> Layout:
    """Place each integer-coded categorical feature whose seen values (in the categorical table
    of ``model_id``, across its partitions if it has several) are contiguous. Empty when none
    is."""
    attributes = [f.name for f in features if f.kind == CATEGORICAL and integer_coded(f.sql_type)]
    if not attributes:
        return {}
    ranges = warehouse.fetch(
        "select_value_ranges",
        categorical=parameter_table(model_id, "categorical"),
        attributes=templates.values([(a,) for a in attributes], "a", ("attribute",)),
    )
    contiguous = {
        r["attribute"]: (r["low"], r["high"])
        for r in ranges.to_pylist()
        if r["n_values"] == r["high"] - r["low"] + 1
    }
    placed: Layout = {}
    first_code = 0
    for attribute in attributes:
        if attribute in contiguous:
            low, high = contiguous[attribute]
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


def create_table(
    warehouse: Warehouse,
    model_id: str,
    placed: Layout,
    n_classes: int,
    partitioned: bool = False,
) -> None:
    """Write ``wml.<model_id>_lookup`` (code BIGINT, lp_0 .. lp_{K-1} DOUBLE) from the model's
    categorical, unseen and classes tables (``partitioned``: tables with a wml_part column)."""
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
        categorical_part=partition_or_zero(partitioned, "k"),
        unseen_part=partition_or_zero(partitioned, "u"),
        classes_part=partition_or_zero(partitioned, "c"),
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
