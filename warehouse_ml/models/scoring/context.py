"""Where a scoring query is built for, and what its rows promise: :class:`ScoringContext`.

Every query that scores rows with a fitted model (predictions, views, tables, exported SQL,
explanations, cross-validation's held-out rows) is built for one context, passed from the call
that starts it to the kind's scores (``Classifier._scores``) and the query builders:

* the engine whose parameter tables the query reads (``warehouse``);
* the dialect its text is written in: the engine's own, or another one for exported SQL
  (models/scoring/export.py), where a kind may choose portable SQL over the engine's own
  functions (k-NN's search: models/learners/neighbors/search.py);
* whether the source's rows are numbered and come back in scan order (``ordered``: results
  fetched to Python; a view or a table promises no order);
* whether steps the engine would otherwise inline are fenced as materialised CTEs (the
  engine's ``MATERIALIZED_STEPS``; dropped when the text is for a dialect without them,
  sqlgen/dialects.py).

A context is immutable and belongs to one call, so two threads scoring with one model object
never see each other's settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from warehouse_ml.engines.base import Warehouse


@dataclass(frozen=True)
class ScoringContext:
    """One scoring call's engine, target dialect and row order (module docstring)."""

    warehouse: Warehouse
    ordered: bool = False
    """Number the source's rows in scan order and return them in it."""
    export_dialect: str | None = None
    """The dialect the SQL is exported to; None: it runs on ``warehouse``'s engine."""

    @property
    def dialect(self) -> str:
        """The dialect the query's text is written in."""
        return self.export_dialect or self.warehouse.dialect

    @property
    def native(self) -> bool:
        """The query runs on ``warehouse``'s own engine (its functions may be used)."""
        return self.dialect == self.warehouse.dialect

    @property
    def materialized(self) -> bool:
        """Fence the steps an engine would otherwise inline (``MATERIALIZED_STEPS``)."""
        return self.warehouse.MATERIALIZED_STEPS
