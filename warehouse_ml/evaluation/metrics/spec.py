"""What a predictions relation holds, and the prepared predictions every measure reads.

:func:`resolve` checks a source's target, probability and prediction columns and returns a
:class:`Spec`; :func:`prepared` turns the source into the relation of
``select_prepared_predictions.sql`` (class indexes, one DOUBLE probability per class), the
input of every measure's query. The other helpers are the pieces several measures share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ColumnError, DataError, ParameterError
from warehouse_ml.models.scoring.names import PROBABILITY_PREFIX
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, alias, column, literal
from warehouse_ml.stats.features import is_number_type

PREPARED = "p"
"""Alias of the prepared predictions in the templates that read them row by row."""


@dataclass(frozen=True)
class Spec:
    """The resolved columns of a predictions relation: the true class, one probability column
    per class (``labels`` in class order), the prediction column (None: the argmax), and
    whether labels are compared as text (the default ``p_<label>`` columns). ``counted``:
    tables already holding a class's cumulative counts (by class index), which the ranking
    measures of that class read instead of counting again (a report computes them once).
    ``weight``: a column of row weights: every measure then counts each row as its weight
    (scikit-learn's ``sample_weight`` of its metrics)."""

    target: str
    labels: tuple[Any, ...]
    columns: tuple[str, ...]
    prediction: str | None
    as_text: bool
    counted: Mapping[int, TableName] = field(default_factory=dict, compare=False)
    weight: str | None = None

    @property
    def count_type(self) -> exp.DataType:
        """The type of the measures' counts: BIGINT rows, or DOUBLE summed weights."""
        return exp.DataType.build("BIGINT" if self.weight is None else "DOUBLE")

    @property
    def k(self) -> int:
        """The number of classes."""
        return len(self.labels)

    def index_of(self, label: Any) -> int:
        """The class index of ``label``."""
        for i, mine in enumerate(self.labels):
            if mine == label or (self.as_text and mine == str(label)):
                return i
        raise ParameterError(f"class {label!r} is not one of the classes {list(self.labels)}")

    def classes(self, name: str) -> exp.Values:
        """``VALUES name(class_index, class_label)``, one row per class."""
        return templates.values(
            [[i, label] for i, label in enumerate(self.labels)],
            name,
            ["class_index", "class_label"],
        )


def resolve(
    src: Source,
    target: str,
    probabilities: Mapping[Any, str] | None,
    prediction: str | None,
    weight: str | None = None,
) -> Spec:
    """Check the named columns exist in ``src`` (``weight``: a numeric column of row weights);
    without ``probabilities``, every ``p_<label>`` column is a class's probability."""
    src.field(target)
    if weight is not None:
        kind = src.field(weight).type
        if not is_number_type(kind):
            raise ColumnError(
                f"weight column {weight!r} of {src.description} has type {kind}; expected a "
                "numeric column of row weights"
            )
    if probabilities is None:
        columns = [c for c in src.columns if c.startswith(PROBABILITY_PREFIX)]
        labels: list[Any] = [c[len(PROBABILITY_PREFIX) :] for c in columns]
        as_text = True
        if not columns:
            raise ColumnError(
                f"source {src.description} has no probability columns named "
                f"'{PROBABILITY_PREFIX}<label>'; pass probabilities={{label: column, ...}}"
            )
    else:
        labels, columns = list(probabilities.keys()), list(probabilities.values())
        as_text = False
    if len(labels) < 2:
        raise ParameterError(f"expected at least two classes, got {labels!r}")
    for name in columns:
        src.field(name)
    if prediction is not None:
        src.field(prediction)
    return Spec(target, tuple(labels), tuple(columns), prediction, as_text, weight=weight)


def _label_index(spec: Spec, value: exp.Expression) -> exp.Expression:
    """CASE mapping a label column to its class index (NULL for other values)."""
    compared = exp.cast(value, exp.DataType.Type.VARCHAR) if spec.as_text else value
    case = exp.case()
    for i, label in enumerate(spec.labels):
        case = case.when(exp.EQ(this=compared.copy(), expression=literal(label)), literal(i))
    return case


def _first_largest(items: Sequence[exp.Expression]) -> exp.Expression:
    """CASE giving the index of the first largest item; NULLs are skipped."""
    best = exp.Greatest(
        this=items[0].copy(), expressions=[i.copy() for i in items[1:]], ignore_nulls=True
    )
    case = exp.case()
    for i, item in enumerate(items):
        case = case.when(exp.EQ(this=item.copy(), expression=best.copy()), literal(i))
    return case


def prepared(spec: Spec, src: Source, keys: Sequence[str] = ()) -> exp.Query:
    """The prepared predictions (``select_prepared_predictions.sql``): wml_truth,
    wml_predicted, wml_p_<i>, wml_weight (1, or the row's weight) and the ``keys`` as
    wml_k_<i> (:func:`key_name`)."""
    probability = [exp.cast(column(c, "src"), exp.DataType.Type.DOUBLE) for c in spec.columns]
    predicted = (
        _label_index(spec, column(spec.prediction, "src"))
        if spec.prediction is not None
        else _first_largest(probability)
    )
    for key in keys:
        src.field(key)
    return templates.build(
        "select_prepared_predictions",
        source=src.relation,
        keys=[alias(column(k, "src"), key_name(i)) for i, k in enumerate(keys)],
        truth=_label_index(spec, column(spec.target, "src")),
        predicted=predicted,
        probabilities=[alias(p, f"wml_p_{i}") for i, p in enumerate(probability)],
        weight=literal(1)
        if spec.weight is None
        else exp.cast(column(spec.weight, "src"), exp.DataType.Type.DOUBLE),
    )


def key_name(index: int) -> str:
    """The prepared predictions' name of the key column at ``index`` (the prepared relation
    carries only the library's names; keys get theirs back in the measure's output)."""
    return f"wml_k_{index}"


def probability(index: int) -> exp.Column:
    """The prepared predictions' probability of class ``index``, read row by row."""
    return column(f"wml_p_{index}", PREPARED)


def positive_index(spec: Spec, positive: Any) -> int:
    """The class index of ``positive``; by default the second class of a binary problem."""
    if positive is None:
        if spec.k != 2:
            raise ParameterError(
                f"choose the positive class with positive=...: there are {spec.k} classes "
                f"{list(spec.labels)}"
            )
        return 1
    return spec.index_of(positive)


def exact_sum(spec: Spec, terms: exp.Query) -> exp.Query:
    """The total and (weighted) mean of a relation of row terms and weights, summed exactly
    as decimals (``select_exact_sum.sql``)."""
    return templates.build("select_exact_sum", terms=terms, count_type=spec.count_type)


def one_row(table: pa.Table, what: str) -> dict[str, Any]:
    """The only row of a one-row measure, as a dict."""
    rows = table.to_pylist()
    if len(rows) != 1:
        raise DataError(f"no rows to compute {what} from (no row has a known true class)")
    return rows[0]


def with_labels(table: pa.Table, spec: Spec, index_column: str = "class_index") -> pa.Table:
    """``table`` with a class_label column after its class index column."""
    labels = [spec.labels[i] for i in table.column(index_column).to_pylist()]
    position = table.schema.get_field_index(index_column) + 1
    return table.add_column(position, "class_label", pa.array(labels))
