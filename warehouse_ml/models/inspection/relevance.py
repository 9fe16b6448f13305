"""Which attributes matter: MI(A; C) of a table's columns before any model is fit
(:func:`rank_attributes`, :func:`pair_information`), the ``top:k`` feature choice that
cross-validation makes inside each training fold (:func:`top_features`), and a fitted model's
own ranking (:func:`model_ranking`, behind ``Classifier.attribute_ranking``).

Column treatment follows ``fit``: the same type rule, ``categorical=`` / ``numeric=``
declarations and integer rule (stats/integer_rule.py). A numeric column is cut into ``bins``
equal-frequency bins of the rows with a class (stats/binning.py, as TAN does); the counts of
every attribute come from one statement over blocks of attributes (stats/counting.py) and MI
from SQL over them (stats/information.py).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import ColumnError, ParameterError
from warehouse_ml.sqlgen import templates
from warehouse_ml.stats import binning, counting, information, pairs
from warehouse_ml.stats.counting import PARTITION
from warehouse_ml.stats.features import NUMERIC, Feature
from warehouse_ml.stats.integer_rule import choose_features
from warehouse_ml.store import catalog
from warehouse_ml.store.catalog import ModelRecord

_TOP = re.compile(r"top:([0-9]+)")


def top_count(features: Any) -> int | None:
    """k of a ``features="top:k"`` choice (k >= 1), None for a list of names, one name or
    None; a string that starts with ``top:`` but is no such choice is refused."""
    if not isinstance(features, str) or not features.strip().startswith("top:"):
        return None
    match = _TOP.fullmatch(features.strip())
    if match is None or int(match.group(1)) < 1:
        raise ParameterError(
            f"features={features!r}: expected a list of column names, None (every column), or "
            "'top:k' (the k columns of highest MI with the class, k >= 1)"
        )
    return int(match.group(1))


def candidates(
    warehouse: Warehouse,
    source: Source,
    target: str,
    features: str | Sequence[str] | None,
    *,
    keys: Iterable[str] | None,
    categorical: str | Iterable[str] | None,
    numeric: str | Iterable[str] | None,
) -> tuple[list[Feature], int | None]:
    """The features a choice picks from, and k of a ``"top:k"`` choice (None otherwise):
    ``features`` as names (a list, or one name; every column for None or ``"top:k"``),
    chosen by stats/integer_rule.py's ``choose_features``. A k above the candidates is
    refused (ParameterError)."""
    top = top_count(features)
    if isinstance(features, str) and top is None and features not in source.columns:
        raise ParameterError(
            f"features={features!r} names no column of {source.description}; expected a "
            "column name, a list of them, None (every column), or 'top:k' (the k columns of "
            "highest MI with the class, k >= 1)"
        )
    chosen = choose_features(
        warehouse, source, target, None if top else features, keys=keys,
        categorical=categorical, numeric=numeric,
    )  # checks the target too  # fmt: skip
    if top is not None and top > len(chosen):
        raise ParameterError(
            f"features='top:{top}' asks for more attributes than the {len(chosen)} of "
            f"{source.description} ({[f.name for f in chosen]})"
        )
    return chosen, top


def treatment(feature: Feature, edges: Mapping[str, Sequence[float]]) -> str:
    """How a column's MI was measured, as the rankings state it."""
    if feature.kind != NUMERIC:
        return "categorical"
    return f"numeric: {len(edges[feature.name])} equal-frequency bins"


def _discretised(
    warehouse: Warehouse,
    relation: exp.Table | exp.Query,
    target: str,
    features: Sequence[Feature],
    bins: int,
) -> tuple[exp.Table | exp.Query, dict[str, list[float]]]:
    """``relation`` with each numeric feature replaced by its bin index, and the bin edges."""
    numeric = [f.name for f in features if f.kind == NUMERIC]
    edges = binning.fetch_edges(warehouse, relation, target, numeric, bins) if numeric else {}
    named = isinstance(relation, (exp.Table, exp.Subquery))  # a subquery has its alias already
    source = relation if named else relation.subquery("wml_rows")
    return binning.discretised_source(source, [target], features, edges), edges


def information_rows(
    warehouse: Warehouse,
    relation: exp.Table | exp.Query,
    target: str,
    features: Sequence[Feature],
    bins: int,
) -> pa.Table:
    """MI(A; C) of each feature over ``relation``'s rows, ranked: columns attribute (string),
    treatment (string), n (int64 rows with a value and a class), mi (float64 bits), rank
    (int64: 1 for the highest MI, ties to the earlier feature). A feature with no such row has
    n = 0 and MI 0."""
    discrete, edges = _discretised(warehouse, relation, target, features, bins)
    counts = counting.categorical_counts(discrete, target, [f.name for f in features])
    rows = warehouse.fetch_tree(information.class_information_query(counts)).to_pylist()
    counted = {r["attribute"]: (r["n"], r["mi"]) for r in rows}
    measured = {f.name: (treatment(f, edges), *counted.get(f.name, (0, 0.0))) for f in features}
    ordered, columns = _ranked([f.name for f in features], measured)
    return pa.table({**columns, "rank": pa.array(range(1, len(ordered) + 1), pa.int64())})


def _ranked(
    names: Sequence[str], measured: Mapping[str, tuple[str, int, float]]
) -> tuple[list[str], dict[str, pa.Array]]:
    """``names`` by MI descending (ties to the earlier name), and the columns attribute,
    treatment, n and mi in that order, from ``measured`` (name -> (treatment, n, mi))."""
    order = sorted(range(len(names)), key=lambda i: (-measured[names[i]][2], i))
    ordered = [names[i] for i in order]
    return ordered, {
        "attribute": pa.array(ordered, pa.string()),
        "treatment": pa.array([measured[a][0] for a in ordered], pa.string()),
        "n": pa.array([measured[a][1] for a in ordered], pa.int64()),
        "mi": pa.array([measured[a][2] for a in ordered], pa.float64()),
    }


def top_features(
    warehouse: Warehouse,
    relation: exp.Table | exp.Query,
    target: str,
    features: Sequence[Feature],
    k: int,
    bins: int = binning.DEFAULT_BINS,
) -> list[Feature]:
    """The ``k`` features of highest MI with the class over ``relation``'s rows
    (:func:`information_rows`), in their original order."""
    ranked = information_rows(warehouse, relation, target, features, bins)
    kept = set(ranked.column("attribute").to_pylist()[:k])
    return [f for f in features if f.name in kept]


@contextlib.contextmanager
def _columns_of(
    con: Connectable,
    source: SourceLike,
    target: str,
    features: Sequence[str] | None,
    options: Mapping[str, Any],
) -> Iterator[tuple[Warehouse, Source, list[Feature]]]:
    """The session, the opened source and its features as ``fit`` would choose them
    (``options``: keys, categorical, numeric), for the two public measures below."""
    with session(con) as warehouse, open_source(warehouse, source) as src:
        yield warehouse, src, choose_features(warehouse, src, target, features, **options)


def rank_attributes(
    con: Connectable,
    source: SourceLike,
    target: str,
    features: Sequence[str] | None = None,
    *,
    keys: Iterable[str] | None = None,
    categorical: Iterable[str] | None = None,
    numeric: Iterable[str] | None = None,
    bins: int = binning.DEFAULT_BINS,
) -> pa.Table:
    """MI(A; C) in bits of each attribute of ``source`` with the class ``target``, for choosing
    features before any model is fit, ranked (module docstring: the columns are treated as
    ``fit`` treats them; numerics on ``bins`` equal-frequency bins).

    Returns:
        columns attribute (string), treatment (string: ``categorical`` or ``numeric: <b>
        equal-frequency bins``), n (int64 rows with a value and a class: NULLs are left out
        per attribute), mi (float64 bits), rank (int64, 1 = highest MI, ties to the earlier
        column); one row per attribute, by rank.
    """
    binning.check_bins(bins)
    options = {"keys": keys, "categorical": categorical, "numeric": numeric}
    with _columns_of(con, source, target, features, options) as (warehouse, src, chosen):
        return information_rows(warehouse, src.relation, target, chosen, bins)


def pair_information(
    con: Connectable,
    source: SourceLike,
    target: str,
    features: Sequence[str] | None = None,
    *,
    keys: Iterable[str] | None = None,
    categorical: Iterable[str] | None = None,
    numeric: Iterable[str] | None = None,
    bins: int = binning.DEFAULT_BINS,
) -> pa.Table:
    """CMI(Ai; Aj | C) and MI(Ai; Aj) in bits of every attribute pair of ``source``: what TAN
    weighs its tree by, before any model is fit (columns treated as :func:`rank_attributes`
    treats them). Rows where Ai or Aj is NULL, or the class is, are left out of the pair.

    Returns:
        columns attribute_i, attribute_j (string; i before j in column order), n (int64 rows
        of the pair), cmi (float64 bits), mi (float64 bits); pairs with no such row are left
        out.
    """
    binning.check_bins(bins)
    options = {"keys": keys, "categorical": categorical, "numeric": numeric}
    with _columns_of(con, source, target, features, options) as (warehouse, src, chosen):
        if len(chosen) < 2:
            raise ColumnError(
                f"pair information needs at least two attributes of {src.description}; got "
                f"{[f.name for f in chosen]}"
            )
        discrete, _ = _discretised(warehouse, src.relation, target, chosen, bins)
        names = [f.name for f in chosen]
        singles = warehouse.fetch_tree(counting.categorical_counts(discrete, target, names))
        values = {(r["attribute"], r["value"]) for r in singles.to_pylist()}
        labels = set(singles.column("class_label").to_pylist())
        cardinality = [sum(1 for a, _ in values if a == name) for name in names]
        blocks = pairs.plan_pair_blocks(cardinality, max(len(labels), 1))
        counts = templates.build(
            "label_pair_counts", counts=pairs.pair_counts_query(discrete, target, names, blocks)
        )
        rows = warehouse.fetch_tree(pairs.information_query(counts))
    order = {n: i for i, n in enumerate(names)}
    records = sorted(
        rows.to_pylist(), key=lambda r: (order[r["attribute_i"]], order[r["attribute_j"]])
    )
    return pa.table(
        {
            "attribute_i": pa.array([r["attribute_i"] for r in records], pa.string()),
            "attribute_j": pa.array([r["attribute_j"] for r in records], pa.string()),
            "n": pa.array([r["n"] for r in records], pa.int64()),
            "cmi": pa.array([r["cmi"] for r in records], pa.float64()),
            "mi": pa.array([r["mi"] for r in records], pa.float64()),
        }
    )


GAUSSIAN_TREATMENT = "gaussian: {bins} equal-frequency bins of the fitted class normals"
COUNTED_PARTS = ("categorical", "histogram")
"""A fitted model's tables of (attribute, value, class) counts: its categorical attributes and
TAN's binned numerics (``categorical``), a Naive Bayes model's numeric training histogram
(``histogram``)."""


def model_information(
    warehouse: Warehouse, record: ModelRecord, bins: int = binning.DEFAULT_BINS
) -> dict[str, tuple[str, int, float]]:
    """attribute -> (treatment, n, MI(A; C) in bits) of every feature of a fitted model, from
    its stored parameters alone (an attribute with no counted row: n = 0, MI 0), all by
    stats/information.py's ``class_information_query`` over its counts: categorical
    attributes and TAN's binned numerics (the ``categorical`` table), Naive Bayes' numeric
    attributes from their training histogram (the ``histogram`` table: the bins and counts
    ``rank_attributes`` measures the same rows with, hence the same MI). A Naive Bayes model
    stored before the histogram measures its Gaussian attributes from their class normals
    (``gaussian_information``, on ``bins`` equal-frequency bins of their mixture)."""
    counted = [
        information.model_counts(record.parameters(part))
        for part in COUNTED_PARTS
        if part in record.parts
    ]
    rows = (
        warehouse.fetch_tree(
            information.class_information_query(templates.union_all(counted))
        ).to_pylist()
        if counted
        else []
    )
    measured = {name: (_model_treatment(record, name), 0, 0.0) for name in record.features}
    for row in rows:
        measured[row["attribute"]] = (measured[row["attribute"]][0], row["n"], row["mi"])
    if "gaussian" in record.parts and "histogram" not in record.parts:
        for name, per_class in fitted_normals(warehouse, record).items():
            measured[name] = (
                GAUSSIAN_TREATMENT.format(bins=bins),
                int(sum(c.n for c in per_class)),
                information.gaussian_information(per_class, bins),
            )
    return measured


def _model_treatment(record: ModelRecord, name: str) -> str:
    """How a fitted model's attribute ``name`` is measured: on TAN's bins, on a Naive Bayes
    histogram's (worded as :func:`rank_attributes` words its own), or as categorical."""
    model_bins = record.state.learned.binned_edges()
    if name in model_bins:
        return f"numeric: the model's {len(model_bins[name])} equal-frequency bins"
    histogram_bins = record.state.learned.histogram_edges()
    if name in histogram_bins:
        return treatment(Feature(name, NUMERIC, ""), histogram_bins)
    return "categorical"


def fitted_normals(
    warehouse: Warehouse, record: ModelRecord
) -> dict[str, list[information.ClassNormal]]:
    """attribute -> the class normals of each Gaussian attribute of a fitted Naive Bayes model
    (its ``gaussian`` table, model 0), in class order."""
    normals: dict[str, list[information.ClassNormal]] = {}
    for row in catalog.read_part(warehouse, record, "gaussian").to_pylist():
        if row[PARTITION] == 0:
            normals.setdefault(row["attribute"], []).append(
                information.ClassNormal(row["n"], row["mean"], row["variance"])
            )
    return normals


def model_ranking(
    features: Sequence[str],
    measured: Mapping[str, tuple[str, int, float]],
    links: Mapping[str, tuple[str, float]],
    evidence: Mapping[str, float | None] | None,
) -> pa.Table:
    """A fitted model's attribute ranking (``Classifier.attribute_ranking``) from
    :func:`model_information`, its tree ``links`` (attribute -> (parent, CMI with it given the
    class, bits)) and the mean |evidence| per attribute (None: no source given)."""
    ordered, columns = _ranked(features, measured)
    parents = [links.get(a, (None, None)) for a in ordered]
    means = [None if evidence is None else evidence.get(a) for a in ordered]
    return pa.table(
        {
            **columns,
            "parent": pa.array([p for p, _ in parents], pa.string()),
            "cmi_parent": pa.array([c for _, c in parents], pa.float64()),
            "mean_abs_evidence": pa.array(means, pa.float64()),
            "rank": pa.array(range(1, len(ordered) + 1), pa.int64()),
        }
    )
