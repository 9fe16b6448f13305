"""What a split or a resample (evaluation/splits.py, resampling.py) is kept as: a table, or a
view; each form carries its own checks and the kind of object it creates."""

from __future__ import annotations

from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ParameterError


class KeptAs:
    """What a split (or a resample, resampling.py) is kept as: a table, its rows computed
    once, from any source, with or without a key."""

    kind = "table"

    def check_key(self, key: str | None) -> None:
        """Refuse a missing key this form cannot do without (a table needs none)."""

    def check_source(self, source: Source, owner_kind: str) -> None:
        """Refuse a source this form cannot be defined over (a table takes any)."""


class _KeptAsView(KeptAs):
    """A view, its rows computed on each read: over a durable source (not an Arrow object or
    a file of the call), by key (a row number in scan order is only kept by a table)."""

    kind = "view"

    def check_key(self, key: str | None) -> None:
        if key is None:
            raise ParameterError(
                "a split view needs a key column: without one, rows are numbered in scan "
                "order, which only a materialised table keeps (use view=False or key=...)"
            )

    def check_source(self, source: Source, owner_kind: str) -> None:
        source.durable_spec(f"a {owner_kind} view")


TABLE = KeptAs()
VIEW = _KeptAsView()


def kept_as(view: bool) -> KeptAs:
    """The form a public call's ``view`` argument asks for."""
    return VIEW if view else TABLE
