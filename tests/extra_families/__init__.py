"""Model families outside the library's package, each a subpackage of its own files only (its
module, its ``specs`` module, its SQL folder ``sql/``), registered at run time by the tests that
use them (:func:`registered`): what docs/ARCHITECTURE.md "Adding a model" walks through."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from warehouse_ml.models import kinds
from warehouse_ml.models.kind_spec import KindSpec
from warehouse_ml.sqlgen import templates

HERE = Path(__file__).resolve().parent


@contextlib.contextmanager
def registered() -> Iterator[list[KindSpec]]:
    """Every family of this package registered as the library's own are, for the duration of a
    ``with`` block: its kinds by ``kinds.register_families``, its templates (each family's
    ``sql/`` folder) by ``templates.outside_folder``; the block gets the kinds."""
    with contextlib.ExitStack() as stack:
        for folder in sorted(HERE.glob("*/sql")):
            stack.enter_context(templates.outside_folder(folder))
        found = kinds.register_families(__name__)
        for spec in found:
            stack.callback(kinds.unregister, spec.kind)
        yield found
