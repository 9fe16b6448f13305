"""Drift monitoring of a fitted model: how far a new table has moved from its training data,
fetched or as a view.

:class:`Monitor` is a base of :class:`warehouse_ml.models.base.Classifier` (as
models/scoring/prediction.py's ``Predictor`` is); it relies on the classifier's ``_current`` and
``scoring_query``. The measures, their smoothing and thresholds are in models/living/drift.py. A
drift view is owned and registered with its model like a prediction view, so a re-fit rebuilds it
against the new training counts and ``drop`` removes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.models import capabilities
from warehouse_ml.models.capabilities import CountSummaries
from warehouse_ml.models.living import drift as drift_measures
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats import binning
from warehouse_ml.store.catalog import DRIFT_VIEW, ModelRecord


class Monitor:
    """Drift of new data from a fitted classifier's training counts (module docstring), for a
    kind that declares :class:`~warehouse_ml.models.capabilities.CountSummaries` (another
    kind's ``drift`` is a NotSupportedError)."""

    def drift(
        self, con: Connectable, source: SourceLike, *, bins: int = drift_measures.DEFAULT_BINS
    ) -> pa.Table:
        """How far ``source``'s distributions are from the training data's, computed in SQL
        from the model's stored counts (the training data is not read).

        One row per attribute (the model's order), then ``class`` (when ``source`` has the
        target column: the class-prior shift) and ``prediction`` (the model's predicted classes
        over ``source`` against the training classes). Columns: kind, attribute, treatment
        (string), bins, n_expected, n_observed, n_unseen (int64), psi, js_distance, chi_square
        (float64), df (int64), p_value (float64), psi_flag (``stable`` below 0.1,
        ``moderate`` below 0.25, else ``major``); models/living/drift.py defines each. Numeric
        attributes are counted on the training histogram of a Naive Bayes model and on the
        model's own bins for TAN (the training table itself has PSI 0). ``bins``: for a Naive
        Bayes model stored before the histogram, the equal-frequency bins of a Gaussian
        attribute's fitted mixture (unused otherwise).
        """
        capabilities.require(self, CountSummaries, "drift")
        with (
            session(con) as warehouse,
            open_source(warehouse, source) as src,
            self._current(warehouse) as record,
        ):
            return warehouse.fetch_tree(self.drift_query(warehouse, record, src, bins))

    def create_drift_view(
        self,
        con: Connectable,
        view: str | Sequence[str],
        source: str | Sequence[str],
        *,
        bins: int = drift_measures.DEFAULT_BINS,
    ) -> TableName:
        """Create (or replace) a plain-SQL view of :meth:`drift` over a table, view or file,
        which a dashboard or a scheduled check reads as the source changes. The view is
        registered as the model's: a re-fit rebuilds it against the new training counts,
        ``drop`` removes it. Its name must be new or a view warehouse-ml made (a user's table or
        view, or the source itself, is a NameConflictError before anything runs). Returns the
        view's schema-qualified name."""
        capabilities.require(self, CountSummaries, "create_drift_view")
        options = {"bins": binning.check_bins(bins)}

        return self._create_model_view(
            con, view, source, role=DRIFT_VIEW, created_by="create_drift_view",
            what="a drift view", options=options,
        )  # fmt: skip

    def drift_query(
        self, warehouse: Warehouse, record: ModelRecord, source: Source, bins: int
    ) -> exp.Query:
        """The query of :meth:`drift` (models/living/drift.py's drift_query with this model's
        predictions of ``source``)."""
        bins = binning.check_bins(bins)
        prediction = names.fresh("wml_prediction", source.columns)
        predictions = self.scoring_query(
            ScoringContext(warehouse), record, source, prediction_name=prediction
        )
        return drift_measures.drift_query(warehouse, record, source, predictions, prediction, bins)

    def stored_drift_query(
        self, warehouse: Warehouse, record: ModelRecord, source: Source, options: dict[str, Any]
    ) -> exp.Query:
        """The query of a drift view created with ``options``, over ``record``'s model."""
        return self.drift_query(warehouse, record, source, options["bins"])
