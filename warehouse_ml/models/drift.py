"""Drift: how far a new table's distributions have moved from the ones a model was fitted on.

Each monitored distribution is compared as counts over the same cells, the training side read
from the model's stored counts (the training data is not read again):

* an attribute: its values (categorical attributes, counted as the fit counted them: the
  ``categorical`` table summed over classes), TAN's numeric attributes on the model's own bins
  (the same table), and a Naive Bayes Gaussian attribute on ``bins`` equal-frequency bins of
  its fitted mixture of class normals (each bin holds 1/bins of the training rows by
  construction; the source's values are counted into the same bins);
* the class, when the source has the target column: the training class counts;
* the prediction: the model's predicted classes over the source against the training class
  counts (the priors the model predicts from).

Per distribution (sql/drift/select_drift.sql), with n_e, n_o a cell's training and source
counts and N_e, N_o their totals over the cells (NULL values left out):

* population stability index ``psi = sum (q_o - q_e) ln(q_o / q_e)`` on proportions smoothed
  by half a row per cell, ``q = (n + 0.5) / (N + 0.5 B)`` with B the cells (so a value seen on
  one side only has a finite term); flagged ``stable`` below 0.1, ``moderate`` below 0.25,
  ``major`` from 0.25 (:data:`PSI_THRESHOLDS`);
* Jensen-Shannon distance, base 2, of the unsmoothed proportions (0 identical, 1 disjoint);
* the chi-square statistic of homogeneity of the 2 x B table (training, source),
  ``sum (n_e N_o - n_o N_e)^2 / ((n_e + n_o) N_e N_o)``, its B - 1 degrees of freedom and
  p-value (sql/drift/select_chi_square_p_values.sql: the closed-form series of the chi-square
  survival function up to 1,999 degrees of freedom, the Wilson-Hilferty approximation beyond);
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
from warehouse_ml.models import names, relevance
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats import binning, counting, information
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.features import NUMERIC, Feature
from warehouse_ml.store.catalog import ModelRecord

DEFAULT_BINS = 10
"""Equal-frequency bins of a Naive Bayes Gaussian attribute's fitted mixture."""
PSI_THRESHOLDS = (0.1, 0.25)
"""PSI below the first is ``stable``, below the second ``moderate``, else ``major``."""
LARGEST_SERIES_DF = 1999
"""Most degrees of freedom whose p-value is the exact series (i up to 999)."""
ATTRIBUTE, CLASS, PREDICTION = "attribute", "class", "prediction"
"""The kinds of monitored distribution (column ``kind``)."""


def chi_square_p_values(tests: exp.Expression) -> exp.Query:
    """P(X >= x) of chi-square statistics: ``tests`` a relation of (item, x, df); output
    columns item, p_value (sql/drift/select_chi_square_p_values.sql)."""

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
    """Per Gaussian attribute: the upper edges of ``bins`` equal-frequency bins of its fitted
    mixture (the last unbounded), and its training rows."""
    if "gaussian" not in record.parts:
        return {}, {}
    fitted = relevance.fitted_normals(warehouse, record)
    normals = {a: per_class for a, per_class in fitted.items() if any(c.n > 0 for c in per_class)}
    edges = {a: [*information.mixture_edges(c, bins), math.inf] for a, c in normals.items()}
    return edges, {a: int(sum(c.n for c in per_class)) for a, per_class in normals.items()}


def _expected(
    record: ModelRecord,
    items: Sequence[tuple[int, str]],
    gaussian_rows: dict[str, int],
    bins: int,
    class_items: Sequence[int],
) -> exp.Query:
    """Training counts per cell: (item, value, n DOUBLE) for the counted attributes (from the
    ``categorical`` table), the Gaussian attributes (N / bins per bin) and, for each of
    ``class_items``, the classes (from the ``classes`` table)."""
    parts: list[exp.Query] = []
    counted = [(i, a) for i, a in items if a not in gaussian_rows]
    if counted and "categorical" in record.parts:
        mapping = templates.values(counted, "m", ("item", "attribute"))
        parts.append(
            exp.select(
                alias(column("item", "m"), "item"),
                alias(column("value", "c"), "value"),
                alias(exp.cast(column("n", "c"), "DOUBLE"), "n"),
            )
            .from_(record.parameter_relation("categorical", "c"))
            .join(
                mapping,
                on=exp.EQ(this=column("attribute", "m"), expression=column("attribute", "c")),
            )
            .where(exp.EQ(this=column(PARTITION, "c"), expression=literal(0)))
        )
    gaussian = [
        (i, str(b), gaussian_rows[a] / bins)
        for i, a in items
        if a in gaussian_rows
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
    features: Sequence[Feature],
    items: Sequence[tuple[int, str]],
    edges: dict[str, list[float]],
) -> exp.Query:
    """The source's counts per cell of each attribute, (item, value, n): its values as the fit
    counted them, numerics as bin indices on ``edges``, in one scan (stats/counting.py) with a
    constant class."""
    constant = names.fresh("wml_class", source.columns)
    valued = [
        alias(binning.value_expression(f, column(f.name, "src"), edges), f.name) for f in features
    ]
    relation = exp.select(*valued, alias(literal(0), constant)).from_(
        source.relation.copy().as_("src")
    )
    counts = counting.categorical_counts(relation, constant, [f.name for f in features])
    mapping = templates.values(items, "m", ("item", "attribute"))
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


def _observed_column(relation: exp.Expression, name: str, item: int) -> exp.Query:
    """(item, value, n) counts of one column of ``relation`` (its NULLs left out)."""
    value = column(name, "r")
    return (
        exp.select(
            alias(literal(item), "item"),
            alias(exp.cast(value.copy(), "VARCHAR"), "value"),
            alias(exp.Count(this=exp.Star()), "n"),
        )
        .from_(relation)
        .where(exp.Not(this=exp.Is(this=value.copy(), expression=exp.null())))
        .group_by(value)
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
    tan_bins = record.details.get("bins", {})
    binned = {**{a: [*e] for a, e in tan_bins.items()}, **edges}
    described = []
    for f in features:
        if f.name in gaussian_rows:
            how = f"gaussian: {bins} equal-frequency bins of the fitted class normals"
        elif f.kind == NUMERIC:
            how = f"numeric: the model's {len(tan_bins[f.name])} equal-frequency bins"
        else:
            how = "categorical"
        described.append((ATTRIBUTE, f.name, how))
    items = [(i, f.name) for i, f in enumerate(features)]
    observed = [_observed_attributes(source, features, items, binned)] if features else []
    class_items = []
    labelled = [c for c in source.columns if c.casefold() == record.target.casefold()]
    if labelled:
        class_items.append(len(described))
        described.append((CLASS, record.target, "classes"))
        relation = source.relation.copy().as_("r")
        observed.append(_observed_column(relation, labelled[0], class_items[-1]))
    class_items.append(len(described))
    described.append((PREDICTION, record.target, "predicted classes against training classes"))
    observed.append(_observed_column(predictions.subquery("r"), prediction, class_items[-1]))
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
