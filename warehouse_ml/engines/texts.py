"""Statement texts rendered once per process (``Warehouse._rendered``, engines/base.py).

Every library call asks the engine a few small questions before its real work: the
connection's state, where a source name leads and its columns, the model's current version
in the catalog. Building and generating their sqlglot trees cost more Python time than the
engine spends answering them (about 25 ms of a 35-attribute Naive Bayes ``predict_proba`` of
683 rows), while their text depends on nothing else than the template, its bindings, the
engine's dialect and what the adapter's ``_prepare`` reads. A statement whose bindings are
all plain values (:func:`plain`) is therefore rendered once per such key (:func:`kept`); the
most recent :data:`KEPT_TEXTS` are kept. Only the text is kept, never a result: every call
still asks the engine.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

from warehouse_ml.sqlgen.templates import TableName

KEPT_TEXTS = 256
"""Rendered statements a process keeps (least recently used dropped first)."""

_TEXTS: OrderedDict[Hashable, tuple[str, str]] = OrderedDict()
_LOCK = threading.Lock()


def plain(value: Any) -> Hashable | None:
    """``value`` (a template's bindings, or one of them) as a dictionary key that tells apart
    any two values of other texts, or None when it holds a sqlglot tree (or anything else but
    None, str, int, float, bool, TableName and lists, tuples and dicts of them): a float by
    its ``repr`` (-0.0 and 0.0 are equal numbers but other literals), every value with its
    type (True and 1, 1 and 1.0 too)."""
    if isinstance(value, dict):
        items = [(name, plain(v)) for name, v in sorted(value.items())]
        return None if any(v is None for _, v in items) else tuple(items)
    if isinstance(value, (list, tuple)):
        parts = [plain(v) for v in value]
        return None if any(p is None for p in parts) else (type(value), tuple(parts))
    if isinstance(value, TableName):
        return (TableName, value.parts)
    if isinstance(value, float):
        return (float, repr(value))
    if value is None or type(value) in (str, int, bool):
        return (type(value), value)
    return None


def kept(key: Hashable | None, render: Callable[[], tuple[str, str]]) -> tuple[str, str]:
    """``render()`` (a statement's progress description and text), once per process for
    ``key``; every time when ``key`` is None."""
    if key is None:
        return render()
    with _LOCK:
        known = _TEXTS.get(key)
        if known is not None:
            _TEXTS.move_to_end(key)
            return known
    rendered = render()
    with _LOCK:
        _TEXTS[key] = rendered
        while len(_TEXTS) > KEPT_TEXTS:
            _TEXTS.popitem(last=False)
    return rendered
