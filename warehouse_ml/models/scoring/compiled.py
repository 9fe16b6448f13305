"""Scoring SQL compiled once per process: a fitted model version's query text, kept with its
source left open.

Building a scoring query (models/scoring/query.py, the model kind's terms) and generating its text
costs more in Python than DuckDB spends running it on a small table: 40 ms of a 36-attribute TAN
model's 90 ms ``predict_proba`` on 3,196 rows. A model version never changes (a re-fit writes a
new one under a new id, store/catalog.py), so the text of its query depends only on

* the model version (``model_id``) and the limits of models/keyed_terms/literal_terms.py;
* the engine's dialect;
* the source's schema (column names and Arrow types, which choose casts and comparisons), not
  the source itself: the query reads it in one place, ``FROM <source>``;
* the call's output options (passed-through columns, output names, decision rule, order).

:func:`model_text` (for a model version's scoring and explanation queries) and
:func:`scoring_text` build the query once per such key with a placeholder table for the
source, generates it, and keeps the text on either side of the placeholder; a later call puts
its own source's generated name (or subquery) between them. Both parts are sqlglot's output,
so every identifier in the text is quoted as in a freshly built query. The most recent
:data:`KEPT_QUERIES` are kept.
"""

from __future__ import annotations

import dataclasses
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass

from sqlglot import exp

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, byte_compared
from warehouse_ml.errors import TemplateError
from warehouse_ml.models.keyed_terms import literal_terms
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.store.catalog import ModelRecord

KEPT_QUERIES = 64
"""Compiled queries a process keeps (least recently used dropped first)."""

PLACEHOLDER = f"wml_source_{uuid.uuid4().hex}"
"""The table name standing for the source while a query is compiled: no source is named so."""


@dataclass(frozen=True)
class OpenQuery:
    """A query's text around its source: ``before + <source> + after``."""

    before: str
    after: str

    def around(self, warehouse: Warehouse, relation: exp.Table) -> str:
        """The text reading the table (or table function) ``relation`` on ``warehouse``'s
        engine, by its name parts as a template's table slot takes them."""
        parts = {part: relation.args.get(part) for part in ("this", "db", "catalog")}
        return self.before + warehouse.generate(exp.Table(**parts)) + self.after


_COMPILED: OrderedDict[Hashable, OpenQuery] = OrderedDict()
_LOCK = threading.Lock()


def scoring_text(
    warehouse: Warehouse,
    source: Source,
    key: Hashable,
    build: Callable[[exp.Expression], exp.Query],
) -> str:
    """The SQL text of ``build(source.relation)`` on ``warehouse``'s engine, from the query
    compiled for ``key`` (which must hold everything but the table the source reads that the
    query depends on, the source's schema included, see the module docstring) when this
    process has compiled it. A source that reads a query (cross-validation's) is built every
    time."""
    table = source.table if source.table is not None else source.relation
    if not isinstance(table, exp.Table):
        return warehouse.generate(build(source.relation))
    full_key = (warehouse.dialect, key)
    with _LOCK:
        known = _COMPILED.get(full_key)
        if known is not None:
            _COMPILED.move_to_end(full_key)
    if known is not None:
        return known.around(warehouse, table)
    placeholder = TableName((PLACEHOLDER,)).to_table()
    text = warehouse.generate(build(byte_compared(placeholder, source.schema)))
    name = warehouse.generate(placeholder)
    if text.count(name) != 1:
        raise TemplateError(f"a scoring query must read its source once, found {text.count(name)}")
    query = OpenQuery(*text.split(name))
    with _LOCK:
        _COMPILED[full_key] = query
        while len(_COMPILED) > KEPT_QUERIES:
            _COMPILED.popitem(last=False)
    return query.around(warehouse, table)


def model_text(
    warehouse: Warehouse,
    record: ModelRecord,
    source: Source,
    query: Hashable,
    options: Mapping[str, Hashable],
    build: Callable[[Source], exp.Query],
) -> str:
    """The text of ``build(source)``, the query ``query`` names (e.g. the classifier's class and
    what it computes) of the model version ``record`` with the call's ``options``: compiled
    once per process, dialect, model version, limits of models/keyed_terms/literal_terms.py,
    source schema and options (:func:`scoring_text`); a model outside the catalog's (a
    cross-validation fold's) built every time."""
    if record.locations is not None:
        return warehouse.generate(build(source))
    key = (
        query,
        record.model_id,
        literal_terms.limits(),
        tuple((f.name, str(f.type)) for f in source.schema),
        tuple(sorted(options.items())),
    )
    return scoring_text(
        warehouse,
        source,
        key,
        lambda relation: build(dataclasses.replace(source, relation=relation)),
    )
