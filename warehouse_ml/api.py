"""Catalog-level functions of the public API (load, drop and list models), and the evaluation
functions of :mod:`warehouse_ml.crossval` as exported with a ``progress`` keyword."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable
from typing import Any, TypeVar

import pyarrow as pa

import warehouse_ml
from warehouse_ml import catalog, crossval
from warehouse_ml.errors import IncompatibleModelError
from warehouse_ml.model import Classifier
from warehouse_ml.naive_bayes import NaiveBayes
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.tan import TAN
from warehouse_ml.warehouse import Connectable, connect

Function = TypeVar("Function", bound=Callable[..., Any])

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


def with_progress(operation: str, function: Function) -> Function:
    """``function(con, ...)`` with one more keyword argument, ``progress``.

    The returned function connects ``con``, runs ``function`` on that Warehouse inside
    :meth:`Warehouse.operation(operation, progress) <warehouse_ml.warehouse.Warehouse.operation>`
    and returns its result: ``progress`` (a :data:`warehouse_ml.progress.ProgressCallback`, or
    None) is called before each statement and may raise to cancel. Name, docstring and
    signature are ``function``'s, plus the keyword.
    """

    @functools.wraps(function)
    def reporting(
        con: Connectable, *args: Any, progress: ProgressCallback | None = None, **kwargs: Any
    ) -> Any:
        warehouse = connect(con)
        with warehouse.operation(operation, progress):
            return function(warehouse, *args, **kwargs)

    signature = inspect.signature(function)
    keyword = inspect.Parameter(
        "progress", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="ProgressCallback"
    )
    reporting.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*signature.parameters.values(), keyword]
    )
    reporting.__doc__ = (
        f"{(function.__doc__ or '').rstrip()}\n\n    ``progress``: called with a\n"
        f"    :class:`warehouse_ml.progress.Progress` (operation ``{operation!r}``) before each\n"
        "    statement; it may raise to cancel.\n"
    )
    return reporting  # type: ignore[return-value]


cross_validate = with_progress("cross_validate", crossval.cross_validate)
evaluate = with_progress("evaluate", crossval.evaluate)
select_model = with_progress("select_model", crossval.select_model)
