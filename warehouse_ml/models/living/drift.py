"""Drift: how far a new table's distributions have moved from the ones a model was fitted on.

Each monitored distribution is compared as counts over the same cells, the training side read
from the model's stored counts (the training data is not read again):

* an attribute: its values (categorical attributes, counted as the fit counted them: the
  ``categorical`` table summed over classes); a Naive Bayes numeric attribute on its training
  histogram (the ``histogram`` table: the rows of each of ``binning.DEFAULT_BINS``
  equal-frequency bins of the training values, models/learners/bayes/naive_bayes.py); TAN's numeric
  attributes on the model's own bins (the ``categorical`` table: TAN's bins are its
  histogram). The source's values are counted into the same cells, so the training table
  itself has no drift (PSI 0, p-value 1). What is compared is the data, not the model's fit:
  a Gaussian that fits its attribute poorly drifts no more than one that fits it well.
  A Naive Bayes model stored before the histogram compares its Gaussian attributes with
  ``bins`` equal-frequency bins of its fitted mixture of class normals (each bin holds
  1/bins of the training rows by construction), which measures the fit as much as the data;
* the class, when the source has the target column: the training class counts, the source's
  classes compared as the model's target type (a numeric column of another type, such as
  DOUBLE 0.0/1.0 against an integer target, by value; another type family is refused);
* the prediction: the model's predicted classes over the source against the training class
  counts (the priors the model predicts from).

A weighted model's training counts are its summed weights (every count of the model is), its
histogram included; the source's are rows.

Per distribution (warehouse_ml/sql/models/living/drift/select_drift.sql), with n_e, n_o a cell's
training and source counts and N_e, N_o their totals over the cells (NULL values left out):

* population stability index ``psi = sum (q_o - q_e) ln(q_o / q_e)`` on proportions smoothed
  by half a row per cell, ``q = (n + 0.5) / (N + 0.5 B)`` with B the cells (so a value seen on
  one side only has a finite term); flagged ``stable`` below 0.1, ``moderate`` below 0.25,
  ``major`` from 0.25 (:data:`PSI_THRESHOLDS`);
* Jensen-Shannon distance, base 2, of the unsmoothed proportions (0 identical, 1 disjoint);
* the chi-square statistic of homogeneity of the 2 x B table (training, source),
  ``sum (n_e N_o - n_o N_e)^2 / ((n_e + n_o) N_e N_o)``, its B - 1 degrees of freedom and
  p-value (warehouse_ml/sql/models/living/drift/select_chi_square_p_values.sql: the closed-form
  series of the chi-square survival function up to 1,999 degrees of freedom, the Wilson-Hilferty
  approximation beyond);
* ``n_unseen``: source rows in cells with no training row (a new category; for the binned
  attributes every value falls in a bin).

Sums are exact DECIMAL sums, the same on every run and engine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ColumnError
from warehouse_ml.models.inspection import relevance
from warehouse_ml.models.scoring import names
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats import binning, counting, information
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.features import CATEGORICAL, NUMERIC, Feature, counted_alike, integer_valued
from warehouse_ml.store import catalog
from warehouse_ml.store.catalog import ModelRecord

DEFAULT_BINS = 10
"""Equal-frequency bins of a Gaussian attribute's fitted mixture (a Naive Bayes model stored
without a histogram)."""
FRACTIONAL_TYPES = ("double", "float", "halffloat", "decimal")
"""Arrow type names of numbers that need not be integers."""
PSI_THRESHOLDS = (0.1, 0.25)
"""PSI below the first is ``stable``, below the second ``moderate``, else ``major``."""
LARGEST_SERIES_DF = 1999
"""Most degrees of freedom whose p-value is the exact series (i up to 999)."""
ATTRIBUTE, CLASS, PREDICTION = "attribute", "class", "prediction"
"""The kinds of monitored distribution (column ``kind``)."""


def chi_square_p_values(tests: exp.Expression) -> exp.Query:
    """P(X >= x) of chi-square statistics: ``tests`` a relation of (item, x, df); output
    columns item, p_value (warehouse_ml/sql/models/living/drift/select_chi_square_p_values.sql)."""

    def erfc(argument: str) -> exp.Expression:
        return templates.expression(
            "erfc", z=column(f"z_{argument}", "z"), t=column(f"t_{argument}", "z")
        )

    return templates.build(
        "select_chi_square_p_values",
        tests=tests,
        digits=templates.values([(d,) for d in range(10)], "v", ("d",)),
        ln_root_pi=0.5 * math.log(math.pi),
        largest_series_df=LARGEST_SERIES_DF,
        erfc_series=erfc("series"),
        erfc_normal=erfc("normal"),
    )


def _gaussian_edges(
    warehouse: Warehouse, record: ModelRecord, bins: int
) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Per Gaussian attribute of a Naive Bayes model stored without a histogram: the upper
    edges of ``bins`` equal-frequency bins of its fitted mixture (the last unbounded), and its
    training rows."""
    if "gaussian" not in record.parts or "histogram" in record.parts:
        return {}, {}
    fitted = relevance.fitted_normals(warehouse, record)
    normals = {a: per_class for a, per_class in fitted.items() if any(c.n > 0 for c in per_class)}
    edges = {a: [*information.mixture_edges(c, bins), math.inf] for a, c in normals.items()}
    return edges, {a: int(sum(c.n for c in per_class)) for a, per_class in normals.items()}


def _counted_part(record: ModelRecord, feature: Feature) -> str:
    """The parameter table holding a counted attribute's training counts (module docstring)."""
    if feature.name in record.state.learned.histogram_edges():
        return "histogram"
    return "categorical"


def _expected(
    record: ModelRecord,
    items: Sequence[tuple[int, Feature]],
    gaussian_rows: dict[str, int],
    bins: int,
    class_items: Sequence[int],
) -> exp.Query:
    """Training counts per cell: (item, value, n DOUBLE) for the counted attributes (from the
    ``categorical`` or ``histogram`` table, summed over classes), the Gaussian attributes of a
    model stored without a histogram (N / bins per bin) and, for each of ``class_items``, the
    classes (from the ``classes`` table)."""
    parts: list[exp.Query] = []
    for part in relevance.COUNTED_PARTS:
        counted = [
            (i, f.name)
            for i, f in items
            if f.name not in gaussian_rows and _counted_part(record, f) == part
        ]
        if not counted or part not in record.parts:
            continue
        mapping = templates.values(counted, "m", ("item", "attribute"))
        parts.append(
            exp.select(
                alias(column("item", "m"), "item"),
                alias(column("value", "c"), "value"),
                alias(exp.cast(column("n", "c"), "DOUBLE"), "n"),
            )
            .from_(record.parameter_relation(part, "c"))
            .join(
                mapping,
                on=exp.EQ(this=column("attribute", "m"), expression=column("attribute", "c")),
            )
            .where(exp.EQ(this=column(PARTITION, "c"), expression=literal(0)))
        )
    gaussian = [
        (i, str(b), gaussian_rows[f.name] / bins)
        for i, f in items
        if f.name in gaussian_rows
        for b in range(bins)
    ]
    if gaussian:
        parts.append(exp.select("*").from_(templates.values(gaussian, "g", ("item", "value", "n"))))
    for item in class_items:
        parts.append(
            exp.select(
                alias(literal(item), "item"),
                alias(column("class_label", "c"), "value"),
                alias(exp.cast(column("n", "c"), "DOUBLE"), "n"),
            )
            .from_(record.parameter_relation("classes", "c"))
            .where(exp.EQ(this=column(PARTITION, "c"), expression=literal(0)))
        )
    return templates.union_all(parts)


def _observed_attributes(
    source: Source,
    items: Sequence[tuple[int, Feature]],
    edges: dict[str, list[float]],
) -> exp.Query:
    """The source's counts per cell of each attribute, (item, value, n): its values as the fit
    counted them, numerics as bin indices on ``edges``, in one scan (stats/counting.py, each
    block computing its own attributes' values, so the statement grows with the attributes)
    with a constant class."""
    constant = names.fresh("wml_class", source.columns)
    relation = exp.select(exp.Star(), alias(literal(0), constant)).from_(
        source.relation.copy().as_("src")
    )
    features = [f for _, f in items]
    counts = counting.categorical_counts(
        relation,
        constant,
        [f.name for f in features],
        values={
            f.name: binning.value_expression(f, column(f.name, "src"), edges) for f in features
        },
    )
    mapping = templates.values([(i, f.name) for i, f in items], "m", ("item", "attribute"))
    return (
        exp.select(
            alias(column("item", "m"), "item"),
            alias(column("value", "k"), "value"),
            alias(column("n", "k"), "n"),
        )
        .from_(counts.subquery("k"))
        .join(
            mapping, on=exp.EQ(this=column("attribute", "m"), expression=column("attribute", "k"))
        )
    )


def _numeric_type(arrow_type: str) -> bool:
    """Whether a type (its Arrow text) holds numbers."""
    return integer_valued(arrow_type) or arrow_type.startswith(FRACTIONAL_TYPES)


def _class_value(
    warehouse: Warehouse, record: ModelRecord, source: Source, name: str
) -> exp.Expression:
    """The source's class column ``name`` (of row ``r``) as the text of the model's class labels
    (the ``classes`` table's class_label). A column whose values a fit would count as it
    counted its classes (``features.counted_alike``: its type, another string type, an
    integer type within BIGINT) is cast to text as the fit cast its classes. A
    numeric column of another numeric type (e.g. DOUBLE 0.0/1.0 for an integer target, as
    pandas reads an integer column with a NULL) is compared by value with each class: a
    value equal to a class is counted as that class's label, any other as its own text (an
    unseen class). Another type family is refused (ColumnError naming the column and both
    types)."""
    value = column(name, "r")
    found = source.field(name).type
    fitted = record.target_type
    if counted_alike(fitted, CATEGORICAL, found):
        return expressions.as_text(value)
    if not (_numeric_type(str(found)) and _numeric_type(fitted)):
        raise ColumnError(
            f"target column {name!r} of {source.description} has type {found}; model "
            f"{record.name!r} was fitted on target type {fitted}, whose classes "
            f"{record.classes[:5]} cannot be compared with it: expected the target as "
            "numbers or text, as at fit"
        )
    labels = {
        r["class_index"]: r["class_label"]
        for r in catalog.read_part(warehouse, record, "classes").to_pylist()
        if r[PARTITION] == 0
    }
    case = exp.case()
    for index, label in enumerate(record.classes):
        typed = literal(label) if isinstance(label, int) else exp.cast(literal(label), "DOUBLE")
        case = case.when(exp.EQ(this=value.copy(), expression=typed), literal(labels[index]))
    return case.else_(expressions.as_text(value))


def _observed_column(
    relation: exp.Expression, name: str, value: exp.Expression, item: int
) -> exp.Query:
    """(item, value, n) counts of one column ``name`` of ``relation`` (its NULLs left out),
    each row's cell ``value`` (an expression of the column as ``r.<name>``)."""
    present = exp.Not(this=exp.Is(this=column(name, "r"), expression=exp.null()))
    return (  # built in place: the relation may be a large scoring query
        exp.select(
            alias(literal(item), "item"),
            alias(value, "value"),
            alias(exp.Count(this=exp.Star()), "n"),
        )
        .from_(relation, copy=False)
        .where(present, copy=False)
        .group_by(value.copy(), copy=False)
    )


def drift_query(
    warehouse: Warehouse,
    record: ModelRecord,
    source: Source,
    predictions: exp.Query,
    prediction: str,
    bins: int,
) -> exp.Query:
    """The drift of ``source`` from ``record``'s training counts (module docstring).

    ``predictions``: the model's scoring query of ``source`` with the predicted class in
    column ``prediction``.

    Output columns, one row per attribute (in the model's order), then the class (when the
    source has the target column), then the prediction: kind (VARCHAR: attribute, class,
    prediction), attribute (VARCHAR: the attribute's name, the target's for the class and
    prediction rows), treatment (VARCHAR: how its cells are formed), bins (BIGINT cells with a
    row on either side), n_expected (BIGINT training rows), n_observed (BIGINT source rows
    with a value), n_unseen (BIGINT source rows in cells without training rows), psi, js_distance
    (DOUBLE), chi_square (DOUBLE), df (BIGINT), p_value (DOUBLE), psi_flag (VARCHAR: stable,
    moderate, major).
    """
    features = [
        Feature(name, record.feature_types[name]["kind"], record.feature_types[name]["sql_type"])
        for name in record.features
    ]
    edges, gaussian_rows = _gaussian_edges(warehouse, record, bins)
    model_bins = record.state.learned.binned_edges()
    histogram_bins = record.state.learned.histogram_edges()
    binned = {**model_bins, **histogram_bins, **edges}
    described = []
    for f in features:
        if f.name in gaussian_rows:
            how = f"gaussian: {bins} equal-frequency bins of the fitted class normals"
        elif f.name in histogram_bins:
            how = f"numeric: the training histogram's {len(histogram_bins[f.name])} bins"
        elif f.kind == NUMERIC:
            how = f"numeric: the model's {len(model_bins[f.name])} equal-frequency bins"
        else:
            how = "categorical"
        described.append((ATTRIBUTE, f.name, how))
    items = list(enumerate(features))
    observed = [_observed_attributes(source, items, binned)] if features else []
    class_items = []
    labelled = [c for c in source.columns if c.casefold() == record.target.casefold()]
    if labelled:
        class_items.append(len(described))
        described.append((CLASS, record.target, "classes"))
        value = _class_value(warehouse, record, source, labelled[0])
        relation = source.relation.copy().as_("r")
        observed.append(_observed_column(relation, labelled[0], value, class_items[-1]))
    class_items.append(len(described))
    described.append((PREDICTION, record.target, "predicted classes against training classes"))
    predicted = expressions.as_text(column(prediction, "r"))
    observed.append(
        _observed_column(
            predictions.subquery("r", copy=False), prediction, predicted, class_items[-1]
        )
    )
    low, high = PSI_THRESHOLDS
    return templates.build(
        "select_drift",
        expected=_expected(record, items, gaussian_rows, bins, class_items),
        observed=templates.union_all(observed),
        items=templates.values(
            [(i, *d) for i, d in enumerate(described)],
            "i",
            ("item", "kind", "attribute", "treatment"),
        ),
        p_values=chi_square_p_values(
            exp.select("item", "x", "df").from_(exp.to_identifier("tests"))
        ),
        stable_below=low,
        major_from=high,
    )
