"""Join-free scoring terms: a fitted model's parameters written into the query as literals.

Scoring by joins (models/keyed_terms/parameters.py, joined_term) costs joins per attribute,
and what an engine spends planning a query grows with its joins: a 36-attribute TAN view held
143 joins, over 2 s of DuckDB planning for a one-row query, and a join chain of a 200-attribute
model took 15 s to score 2,000 rows. A fitted model (one partition) is therefore scored from
literals wherever its parameters are few; the values are read from its parameter tables when
the query is built (:func:`load`), one statement per table, and written by the planner of
models/keyed_terms/parameters.py (a categorical or TAN attribute's fallback chain as nested CASEs)
or here (prior, Gaussian):

* the prior: ``log P(c)`` per class;
* a categorical attribute with at most :data:`MAX_LITERAL_VALUES` seen values (every one, and
  no lookup block, when the model has more than :data:`MAX_JOINED_ATTRIBUTES` attributes):
  ``CASE WHEN x IS NULL THEN 0 ELSE CASE x WHEN v1 THEN log P(v1|c) ... ELSE <unseen> END END``;
* a numeric attribute: warehouse_ml/sql/models/learners/bayes/naive_bayes/term_gaussian.sql with the
  class's mean and variance;
* a TAN attribute with at most :data:`MAX_LITERAL_PAIRS` observed (value, parent value) pairs:
  a CASE over the parent's value, then over the value.

Every literal is the stored DOUBLE, written exactly (templates.literal), so the terms equal
those of the joined form. Lookup blocks of integer codes stay (models/keyed_terms/lookup.py: one
perfect-hash join per block beats a CASE per code on many rows, 0.15 s against 4.7 s for TAN
over 1M rows x 20 codes), attributes with many values keep their joins, and so do
cross-validation's models (several partitions, scored by one statement over the whole
source). A prediction view holds its model's literals; a re-fit rebuilds its views
(catalog.publish), so a view never disagrees with its model.
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.models.scoring.scores import Term
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import literal
from warehouse_ml.store import catalog
from warehouse_ml.store.catalog import ModelRecord

MAX_JOINED_ATTRIBUTES = 48
"""Models with more attributes than this get literal terms for every attribute."""

MAX_LITERAL_VALUES = 32
"""Most seen values of a categorical attribute scored from literals (in a model of at most
:data:`MAX_JOINED_ATTRIBUTES` attributes)."""

MAX_LITERAL_PAIRS = 64
"""Most observed (value, parent value) pairs of a TAN attribute scored from literals."""

MAX_LITERAL_CELLS = 500
"""Most literal cells (stored rows of the keyed levels times classes) of the attributes of a
fitted model that a numbered scoring query writes as literals; beyond, it reads every one in
long format (models/keyed_terms/long_terms.py): measured on the shared data sets, planning
the literals costs more than the long format's joins from about this size."""

Row = dict[str, Any]
"""A parameter table's row (its columns by name)."""


@dataclass
class LiteralParameters:
    """The parameters of a fitted model that its query writes as literals: ``prior``, log P(c)
    per class index; ``gaussian[attribute, c]``: (mean, variance); ``rows[part][attribute,
    c]``: the rows of parameter table ``part`` (categorical, unseen, TAN's cpt and cpt_parent)
    of an attribute and class, read out by models/keyed_terms/parameters.py (:meth:`cells`).
    Attributes over the limits are absent (:meth:`loaded`), unless ``every_attribute`` (a model
    wider than :data:`MAX_JOINED_ATTRIBUTES`)."""

    prior: list[float | None]
    every_attribute: bool = False
    gaussian: dict[tuple[str, int], tuple[float | None, float | None]] = field(default_factory=dict)
    rows: dict[str, dict[tuple[str, int], list[Row]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list))
    )

    def loaded(self, part: str, attribute: str) -> bool:
        """Whether ``attribute``'s rows of table ``part`` were read (it is within the limits)."""
        return (attribute, 0) in self.rows.get(part, {})

    def count(self, part: str, attribute: str) -> int:
        """The rows of table ``part`` read for ``attribute`` and one class (0 if none)."""
        return len(self.rows.get(part, {}).get((attribute, 0), []))

    def cells(
        self, part: str, attribute: str, class_index: int, keys: Sequence[str], value: str
    ) -> dict[tuple[str, ...], float | None]:
        """Column ``value`` of ``attribute``'s rows of table ``part`` and class ``class_index``,
        by the row's ``keys`` columns (the empty tuple for a table without keys)."""
        found = self.rows.get(part, {}).get((attribute, class_index), [])
        return {tuple(row[key] for key in keys): row[value] for row in found}


_LOADED: OrderedDict[tuple[Any, ...], LiteralParameters] = OrderedDict()
"""The parameters read by :func:`load`, by model version and limits, most recent last: a
version's tables never change (a re-fit writes new ones, and store/integrity.py verifies them
once per process), so a process reads them once."""

LOADED_MODELS = 32
"""Model versions whose literal parameters a process keeps."""


def load(warehouse: Warehouse, record: ModelRecord) -> LiteralParameters:
    """The literal-scored parameters of the fitted model ``record``: every attribute's when it
    has more than :data:`MAX_JOINED_ATTRIBUTES` attributes, else those within
    :data:`MAX_LITERAL_VALUES` / :data:`MAX_LITERAL_PAIRS`; read once per process and model
    version (a model outside the catalog, e.g. a cross-validation fold's, every time)."""
    if record.locations is not None:
        return _read(warehouse, record)
    key = (record.model_id, *limits())
    if key in _LOADED:
        _LOADED.move_to_end(key)
        return _LOADED[key]
    params = _LOADED[key] = _read(warehouse, record)
    while len(_LOADED) > LOADED_MODELS:
        _LOADED.popitem(last=False)
    return params


def limits() -> tuple[int, int, int, int]:
    """The limits in force (:data:`MAX_JOINED_ATTRIBUTES`, :data:`MAX_LITERAL_VALUES`,
    :data:`MAX_LITERAL_PAIRS`, :data:`MAX_LITERAL_CELLS`): with the model version, they decide
    a model's terms."""
    return (MAX_JOINED_ATTRIBUTES, MAX_LITERAL_VALUES, MAX_LITERAL_PAIRS, MAX_LITERAL_CELLS)


def _read(warehouse: Warehouse, record: ModelRecord) -> LiteralParameters:
    every = len(record.features) > MAX_JOINED_ATTRIBUTES
    classes = catalog.read_part(warehouse, record, "classes").to_pylist()
    params = LiteralParameters(prior=[r["log_prior"] for r in classes], every_attribute=every)
    tables = record.parts
    _, values, pairs, _ = limits()
    limited = (
        ("categorical", "categorical", values),
        ("cpt", "cpt", pairs),
        ("cpt_parent", "cpt", pairs),
    )  # (table, table counted, limit): the rows of the attributes within the limit
    for part, counted, limit in limited:
        for row in _few(warehouse, record, part, counted, limit, every):
            params.rows[part][row["attribute"], row["class_index"]].append(row)
    if "unseen" in tables:
        for row in catalog.read_part(warehouse, record, "unseen").to_pylist():
            params.rows["unseen"][row["attribute"], row["class_index"]].append(row)
    if "gaussian" in tables:
        for row in catalog.read_part(warehouse, record, "gaussian").to_pylist():
            params.gaussian[row["attribute"], row["class_index"]] = (row["mean"], row["variance"])
    return params


def _few(
    warehouse: Warehouse, record: ModelRecord, part: str, counted: str, limit: int, every: bool
) -> list[dict[str, Any]]:
    """The rows of parameter table ``part`` of the attributes with at most ``limit`` rows of
    class 0 in table ``counted`` (of every attribute when ``every``), in a fixed order."""
    tables = record.parts
    if part not in tables or counted not in tables:
        return []
    if every:
        return catalog.read_part(warehouse, record, part).to_pylist()
    return warehouse.fetch(
        "select_few_valued_rows",
        table=record.table(part),
        counted=record.table(counted),
        limit=limit,
    ).to_pylist()


def prior_term(params: LiteralParameters) -> Term:
    """log P(c) per class."""
    return Term([literal(lp) for lp in params.prior])


def gaussian_term(params: LiteralParameters, attribute: str, n_classes: int) -> Term:
    """log N(x; mean_c, variance_c) of a numeric attribute."""
    value = expressions.as_double(templates.column(attribute, "s"))
    per_class = []
    for c in range(n_classes):
        mean, variance = params.gaussian.get((attribute, c), (None, None))
        per_class.append(
            templates.expression(
                "term_gaussian", value=value, mean=literal(mean), variance=literal(variance)
            )
        )
    return Term(per_class)
