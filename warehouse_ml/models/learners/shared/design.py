"""The design matrix of the linear families, learned in SQL and applied in SQL.

Rules shared by the linear models (the tests' scikit-learn pipelines mirror them):

* a categorical attribute is one-hot encoded with one indicator per level, every value seen in
  training (as counted: features.value_expression, compared as text, or as integers for an
  integer-coded column), levels in the order of their text;
* a numeric attribute is standardised as scikit-learn's ``StandardScaler``: by the training
  mean and population standard deviation (scale 1 when the deviation is 0), learned in SQL
  from the exact per-class moments (stats/moments.py) pooled over the classes; a weighted fit
  weighs them (``StandardScaler().fit(X, sample_weight=w)``), so that an integer weight equals
  repeated rows;
* a NULL numeric value is the training mean (0 after scaling); a NULL or unseen categorical
  value has every indicator 0;
* a numeric attribute the standardisation cannot use is refused by name (DataError,
  stats/validation.py ``check_moments``): a NaN or ±inf training value, or values whose variance
  in a class or over every row (the one square of the attribute's own values the fit takes)
  overflows double precision, a standard deviation above sqrt(DBL_MAX), about 1.34e154. Every
  later sum of the linear fits is over the standardised values.

The design is stored as the parameter table ``design``
(warehouse_ml/sql/models/learners/linear/logistic_regression/create_linear_design.sql): one row per
design column, 1-based, column 0 being the intercept.
A model's linear score of class k, ``b_k0 + sum_j b_kj x_j``, is scored as one additive term
per attribute (:meth:`Design.terms`): a numeric attribute's ``b_kj`` times its standardised
value, a categorical attribute's ``CASE value WHEN level THEN b_k,level ... ELSE 0 END``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.keyed_terms.lookup import integer_coded
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column, literal
from warehouse_ml.stats import counting
from warehouse_ml.stats.features import (
    CATEGORICAL,
    NUMERIC,
    Feature,
    compared_text,
    value_expression,
    valued_source,
)
from warehouse_ml.stats.moments import numeric_moments
from warehouse_ml.stats.validation import CardinalityCheck, check_moments
from warehouse_ml.store import catalog
from warehouse_ml.store.catalog import ModelRecord


@dataclass(frozen=True)
class DesignColumn:
    """One column of the design after the intercept: a numeric attribute (``level`` None) with
    its training ``mean`` and ``scale``, or one level of a categorical attribute."""

    attribute: str
    kind: str
    level: str | None = None
    mean: float | None = None
    scale: float | None = None

    @property
    def name(self) -> str:
        """The column's name: the attribute, or ``attribute=level`` for an indicator."""
        return self.attribute if self.level is None else f"{self.attribute}={self.level}"


@dataclass(frozen=True)
class Design:
    """The design of a linear model: its ``features`` and its ``columns`` (column j + 1 of a
    coefficient vector is ``columns[j]``; 0 is the intercept)."""

    features: list[Feature]
    columns: list[DesignColumn]

    @property
    def width(self) -> int:
        """Coefficients per class, intercept included."""
        return len(self.columns) + 1

    @property
    def names(self) -> list[str]:
        """Each coefficient's name, ``(intercept)`` first (:attr:`DesignColumn.name`)."""
        return ["(intercept)", *(c.name for c in self.columns)]

    def indices(self, attribute: str) -> list[int]:
        """The coefficient indices (1-based) of ``attribute``'s design columns, in order."""
        return [j + 1 for j, c in enumerate(self.columns) if c.attribute == attribute]

    @classmethod
    def learn(cls, warehouse: Warehouse, training: Training, check: CardinalityCheck) -> Design:
        """The design of the one model ``training`` describes: each categorical attribute's
        levels (one count scan, checked for high cardinality), each numeric attribute's
        weighted mean and population standard deviation (exact moments per class, pooled)."""
        features = training.features
        categorical = [f.name for f in features if f.kind == CATEGORICAL]
        numeric = [f.name for f in features if f.kind == NUMERIC]
        relation = training.source.relation
        levels: dict[str, list[str]] = {a: [] for a in categorical}
        if categorical:
            counted = valued_source(relation, training.carried, features)
            counts = counting.categorical_counts(
                counted, training.target, categorical, weight=training.weight
            )
            check.of_counts(warehouse, counts)
            for row in warehouse.fetch_tree(counts).to_pylist():
                levels[row["attribute"]].append(row["value"])
        scales: dict[str, tuple[float, float]] = {}
        if numeric:
            moments = numeric_moments(relation, training.target, numeric, None, training.weight)
            rows = warehouse.fetch_tree(moments).to_pylist()
            pooled = {a: _pooled([r for r in rows if r["attribute"] == a]) for a in numeric}
            check_moments(
                training.source.description,
                [{**r, "class": r["class_label"]} for r in rows if r["n"]]
                + [
                    {"attribute": a, "class": None, "mean": m, "variance": v}
                    for a, (m, v) in pooled.items()
                ],
            )
            scales = {a: (m, math.sqrt(v) if v > 0 else 1.0) for a, (m, v) in pooled.items()}
        columns = []
        for f in features:
            if f.kind == NUMERIC:
                mean, scale = scales[f.name]
                columns.append(DesignColumn(f.name, NUMERIC, mean=mean, scale=scale))
            else:
                columns += [
                    DesignColumn(f.name, CATEGORICAL, level)
                    for level in sorted(set(levels[f.name]))
                ]
        return cls(list(features), columns)

    def write(self, warehouse: Warehouse, table: TableName) -> None:
        """Store the design as the parameter table ``table`` (module docstring)."""
        rows = [
            (j + 1, c.attribute, c.kind, c.level, c.mean, c.scale)
            for j, c in enumerate(self.columns)
        ]
        if not rows:  # no feature: a table of the right columns and no row
            rows = [(0, "", NUMERIC, None, None, None)]
        warehouse.run(
            "create_linear_design",
            table=table,
            design_rows=templates.values(
                rows, "d", ("column_index", "attribute", "kind", "level", "mean", "scale")
            ),
        )
        if not self.columns:
            warehouse.run_tree(exp.delete(table.to_table()))

    @classmethod
    def read(cls, warehouse: Warehouse, record: ModelRecord) -> Design:
        """The design stored with the fitted model ``record`` (its ``design`` table)."""
        rows = catalog.read_part(warehouse, record, "design").to_pylist()
        rows.sort(key=lambda r: r["column_index"])
        types = record.feature_types
        features = [Feature(n, types[n]["kind"], types[n]["sql_type"]) for n in record.features]
        columns = [
            DesignColumn(r["attribute"], r["kind"], r["level"], r["mean"], r["scale"]) for r in rows
        ]
        return cls(features, columns)

    def without_references(self) -> Design:
        """The design with each categorical attribute's first level (in :attr:`columns` order)
        dropped: that level, its reference, then scores as every indicator 0, as a NULL or
        unseen value does (scikit-learn's ``OneHotEncoder(drop="first")``)."""
        first = {}
        for c in self.columns:
            if c.level is not None:
                first.setdefault(c.attribute, c)
        dropped = set(map(id, first.values()))
        return Design(self.features, [c for c in self.columns if id(c) not in dropped])

    def values(self, source: Source) -> list[exp.Expression]:
        """Each attribute's design value in a row ``s`` of ``source``, in feature order: a
        numeric attribute's standardised value (DOUBLE), a categorical attribute's level
        number (INTEGER, 0-based in :attr:`columns` order; -1 for NULL or unseen)."""
        return [self._value(f, source.field(f.name).type) for f in self.features]

    def _value(self, feature: Feature, source_type: pa.DataType) -> exp.Expression:
        if feature.kind == NUMERIC:
            (j,) = self.indices(feature.name)
            return self.standardized(self.columns[j - 1])
        levels = [self.columns[j - 1].level for j in self.indices(feature.name)]
        numbers = [literal(i) for i in range(len(levels))]
        return _by_level(feature, source_type, levels, numbers, literal(-1))

    @staticmethod
    def standardized(numeric: DesignColumn) -> exp.Expression:
        """A numeric column's standardised value in the row ``s`` (NULL: 0)."""
        return templates.expression(
            "standardized_value",
            value=column(numeric.attribute, "s"),
            mean=literal(numeric.mean),
            scale=literal(numeric.scale),
        )

    def terms(self, source: Source, coefficients: np.ndarray) -> list[Term]:
        """The intercepts, then one term per attribute, of the linear scores with
        ``coefficients`` (one row per class, :attr:`width` columns): each class's expression
        is its coefficients times the row's design values (module docstring)."""
        return [self.intercept_term(coefficients)] + [
            self.attribute_term(source, coefficients, f) for f in self.features
        ]

    @staticmethod
    def intercept_term(coefficients: np.ndarray) -> Term:
        """Each class's intercept."""
        return Term([literal(float(b)) for b in coefficients[:, 0]])

    def attribute_term(self, source: Source, coefficients: np.ndarray, feature: Feature) -> Term:
        """Attribute ``feature``'s contribution to each class's linear score."""
        indices = self.indices(feature.name)
        if feature.kind == NUMERIC:
            value = self.standardized(self.columns[indices[0] - 1])
            return Term(
                [
                    exp.Mul(this=literal(float(b[indices[0]])), expression=value.copy())
                    for b in coefficients
                ]
            )
        levels = [self.columns[j - 1].level for j in indices]
        source_type = source.field(feature.name).type
        return Term(
            [
                _by_level(
                    feature, source_type, levels, [literal(float(b[j])) for j in indices],
                    literal(0.0),
                )
                for b in coefficients
            ]
        )  # fmt: skip


COEFFICIENT_COLUMNS = (
    "wml_part", "class_index", "column_index", "coefficient", "std_error", "z_value", "p_value",
)  # fmt: skip
"""The columns of the ``coefficients`` table
(warehouse_ml/sql/models/learners/linear/logistic_regression/ create_linear_coefficients.sql states
their types and units)."""


def write_coefficients(warehouse: Warehouse, table: TableName, rows: Sequence[tuple]) -> None:
    """Writes the ``coefficients`` table ``table`` of a linear model: ``rows`` of
    :data:`COEFFICIENT_COLUMNS` (std_error, z_value and p_value None where the family has no
    such statistics)."""
    warehouse.run(
        "create_linear_coefficients",
        table=table,
        coefficient_rows=templates.values(list(rows), "c", COEFFICIENT_COLUMNS),
    )


def write_classes(
    warehouse: Warehouse, table: TableName, training: Training, intercepts: np.ndarray
) -> None:
    """Store a linear model's class table ``table`` (create_linear_classes.sql): each class of
    ``training``'s one model with its rows (or summed weights) and its intercept
    (``intercepts``, in classes_ order), the base term scoring and explanations read."""
    warehouse.run(
        "create_linear_classes",
        table=table,
        class_rows=templates.values(
            [(0, c.index, c.label, c.n, float(intercepts[c.index])) for c in training.classes[0]],
            "r",
            ("wml_part", "class_index", "class_label", "n", "intercept"),
        ),
        count_type=training.count_type,
    )


TERMS = (
    "A class's score is its (intercept) plus each term's coefficient times the row's value of "
    "the term: a numeric attribute standardised, (x - mean) / scale (a NULL counts as the mean, "
    "0); a level's indicator, 1 when the row's attribute has that level (a NULL or unseen value: "
    "no level). The probabilities are the family's function of the scores."
)
"""What a table of :func:`coefficient_table` means, as a report states it."""


def coefficient_table(
    design: Design,
    names: Sequence[str],
    classes: Sequence[str],
    coefficients: Sequence[Sequence[float]],
) -> pa.Table:
    """One row per class and coefficient: ``class`` (the label of the row's coefficients),
    ``term`` (``(intercept)``, a numeric attribute, or ``attribute=level``: the design's
    ``names``), ``attribute``, ``level`` (NULL for a numeric attribute and the intercept),
    ``mean`` and ``scale`` (a numeric attribute's standardisation, NULL otherwise) and
    ``coefficient`` (float64)."""
    by_name = {c.name: c for c in design.columns}
    rows = []
    for label, row in zip(classes, coefficients, strict=True):
        for name, b in zip(names, row, strict=True):
            found = by_name.get(name)
            rows.append(
                {
                    "class": label, "term": name,
                    "attribute": None if found is None else found.attribute,
                    "level": None if found is None else found.level,
                    "mean": None if found is None else found.mean,
                    "scale": None if found is None else found.scale,
                    "coefficient": float(b),
                }
            )  # fmt: skip
    schema = pa.schema([("class", pa.string()), ("term", pa.string()), ("attribute", pa.string()),
                        ("level", pa.string()), ("mean", pa.float64()), ("scale", pa.float64()),
                        ("coefficient", pa.float64())])  # fmt: skip
    return pa.Table.from_pylist(rows, schema)


def _by_level(
    feature: Feature,
    source_type: pa.DataType,
    levels: Sequence[str | None],
    results: Sequence[exp.Expression],
    otherwise: exp.Expression,
) -> exp.Expression:
    """``CASE value WHEN level_i THEN results_i ... ELSE otherwise END`` over the row ``s``'s
    value of a categorical ``feature`` (integer codes compared as integers, other values by
    their text as counted); a NULL value matches no level."""
    value = column(feature.name, "s")
    if not levels:
        return otherwise
    if integer_coded(feature.sql_type):
        operand, keys = value, [literal(int(str(level))) for level in levels]
    else:
        operand = compared_text(value_expression(feature, value), source_type)
        keys = [literal(level) for level in levels]
    case = exp.Case(this=operand)
    for key, result in zip(keys, results, strict=True):
        case.when(key, result, copy=False)
    return case.else_(otherwise, copy=False)


def _pooled(rows: Sequence[dict]) -> tuple[float, float]:
    """The (mean, population variance) of an attribute over every class from its per-class
    (n, mean, variance) rows ((0, 0) with no value), each class weighed by its share of the
    rows so that no partial sum exceeds the result: the variance is inf only where the true
    one exceeds the largest double (validation.check_moments refuses it). The mean is the first
    class's plus the shares of the others' differences from it, so classes of one mean pool to
    that mean exactly and a constant column to a variance of 0 exactly (a mean summed as shares
    of 1 that add up to 1 - 1e-16 left 1e-32 of variance: a scale of 1e-16, which made the
    constant a column of +-1 under uneven weights)."""
    present = [r for r in rows if r["n"] and r["mean"] is not None]
    n = sum(float(r["n"]) for r in present)
    if n <= 0:
        return 0.0, 0.0
    shares = [float(r["n"]) / n for r in present]
    first = present[0]["mean"]
    mean = first + sum(
        share * (r["mean"] - first) for share, r in zip(shares, present, strict=True)
    )
    variance = sum(
        share * r["variance"] + (share * (r["mean"] - mean)) * (r["mean"] - mean)
        for share, r in zip(shares, present, strict=True)
    )
    return mean, variance
