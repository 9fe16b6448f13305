"""Catalog-level functions of the public API: load, drop and list models."""

from __future__ import annotations

import json

import pyarrow as pa

import warehouse_ml
from warehouse_ml import catalog
from warehouse_ml.errors import IncompatibleModelError
from warehouse_ml.model import Classifier
from warehouse_ml.naive_bayes import NaiveBayes
from warehouse_ml.tan import TAN
from warehouse_ml.warehouse import Connectable, connect

MODEL_KINDS: dict[str, type[Classifier]] = {NaiveBayes.kind: NaiveBayes, TAN.kind: TAN}


def load(con: Connectable, name: str) -> Classifier:
    """The fitted model ``name`` from the catalog of ``con``, whatever its kind."""
    warehouse = connect(con)
    record = catalog.read(warehouse, name)
    kind = MODEL_KINDS.get(record.kind)
    if kind is None:
        raise IncompatibleModelError(
            f"model {name!r} is of kind {record.kind!r}, unknown to warehouse-ml "
            f"{warehouse_ml.__version__} (known kinds: {sorted(MODEL_KINDS)})"
        )
    return kind.from_record(record)


def drop(con: Connectable, name: str) -> None:
    """Remove model ``name``: its catalog row, parameter tables and registered views."""
    catalog.drop(connect(con), name)


def list_models(con: Connectable) -> pa.Table:
    """The catalog as an Arrow table, one row per model (JSON columns as text)."""
    rows = catalog.list_models(connect(con))
    return pa.Table.from_pylist(
        [
            {k: json.dumps(v) if isinstance(v, (list, dict)) else v for k, v in row.items()}
            for row in rows
        ]
    )
