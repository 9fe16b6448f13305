"""Why this prediction: exact per-row explanations of a fitted model, fetched or as a view.

:class:`Explainer` is a base of :class:`warehouse_ml.models.base.Classifier` (as
models/scoring/prediction.py's ``Predictor`` is); it relies on the classifier's ``classes_``,
``_current`` and, for a kind that declares models/capabilities.py's ``Evidence``, ``_parts`` (one
term per attribute, models/inspection/evidence.py's ``Part``); a kind without it explains its
rows with its own ``explain`` and has no explanation view. The
SQL and its rules are in models/inspection/evidence.py (evidence, contrasts) and
models/inspection/reasons.py (ranks, layouts). An explanation view is owned and registered with its
model like a prediction view, so a re-fit rebuilds it in the same transaction
(store/catalog.publish) and ``drop`` removes it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pyarrow as pa
from sqlglot import exp

from warehouse_ml import charts
from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.models import capabilities
from warehouse_ml.models.capabilities import CountSummaries, Evidence
from warehouse_ml.models.inspection import relevance, sections
from warehouse_ml.models.inspection.evidence import Contrast, mean_evidence_query
from warehouse_ml.models.inspection.reasons import LONG, Layout, explanation_query
from warehouse_ml.models.inspection.sections import ModelSection, ranking_parts
from warehouse_ml.models.keyed_terms import literal_terms
from warehouse_ml.models.scoring import compiled, names
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.sqlgen.templates import TableName
from warehouse_ml.stats.features import column_names
from warehouse_ml.store.catalog import EXPLANATION_VIEW, ModelRecord

ROW_NUMBER = "row"
"""The column that identifies a source row (0-based, in source order) when ``explain`` is given
no keys."""


class Explainer:
    """Explanations of a fitted classifier (module docstring)."""

    RANKING_MEASURE: ClassVar[tuple[str, str]] = ("mi", "MI with the class (bits)")
    """The column of :meth:`attribute_ranking` that ranks the attributes, and its axis label
    in :meth:`plot_attribute_ranking`."""

    def explanation_query(
        self,
        context: ScoringContext,
        record: ModelRecord,
        source: Source,
        *,
        keys: Sequence[str],
        contrast: Contrast,
        layout: Layout,
        row_number: str | None = None,
    ) -> exp.Query:
        """The query explaining ``source`` with ``record``, for ``context`` (its rows in
        source order when ``context.ordered``): the ``keys`` columns (and, with
        ``row_number``, the 0-based source position under that name), then the layout's
        columns (models/inspection/reasons.py). A key named like an output column is refused."""
        self._check_explanation(record, source, keys, layout, row_number)
        warehouse = context.warehouse
        parts = self._parts(warehouse, record, source)
        prior = literal_terms.prior_term(literal_terms.load(warehouse, record))
        return explanation_query(
            source.relation,
            prior,
            parts,
            record.classes,
            contrast,
            layout,
            passthrough=[(k, k) for k in keys],
            row=names.fresh("wml_row", source.columns) if context.ordered else None,
            row_number=row_number,
            materialized=context.materialized,
        )

    def _check_explanation(
        self,
        record: ModelRecord,
        source: Source,
        keys: Sequence[str],
        layout: Layout,
        row_number: str | None,
    ) -> None:
        """``source`` fits ``record`` and holds the ``keys``, none named like an output."""
        outputs = [*layout.output_names(len(record.features)), row_number]
        self._check_outputs(record, source, [(k, k) for k in keys], outputs)

    def _explanation_text(
        self, warehouse: Warehouse, record: ModelRecord, source: Source, **options: Any
    ) -> str:
        """The text of :meth:`explanation_query` in source order (``options`` are its keyword
        arguments), compiled once per process, model version, source schema and options as a
        prediction's is (models/scoring/compiled.py); a model outside the catalog's, every
        time. Building and generating the statement took 0.5-0.8 s of a PostgreSQL TAN
        explanation (300 rows, 6 attributes, 8 classes) whose planning and run took under
        0.1 s."""
        self._check_explanation(
            record, source, options["keys"], options["layout"], options.get("row_number")
        )
        warehouse.require_scan_order(options["keys"])
        return compiled.model_text(
            warehouse, record, source, (type(self).__name__, "explanation"), options,
            lambda opened: self.explanation_query(
                ScoringContext(warehouse, ordered=True), record, opened, **options
            ),
        )  # fmt: skip

    def explain(
        self,
        con: Connectable,
        source: SourceLike,
        *,
        keys: Sequence[str] | None = None,
        top: int | None = None,
        against: Any = None,
        form: str = LONG,
    ) -> pa.Table:
        """Each attribute's exact weight of evidence for the predicted class of every row of
        ``source``, one row per source row and attribute (long format), in source order and
        rank order.

        Columns: the ``keys`` columns (default: ``row``, the 0-based source position, int64),
        ``class`` (the class explained: the predicted one), ``against`` (the class it is
        weighed against: by default the runner-up; ``against=<label>`` names one, a row
        predicted as that class then weighed against its runner-up;
        ``against=warehouse_ml.EVERY_CLASS`` gives each other class against the predicted
        one), ``attribute`` (NULL for the prior), ``value`` (the row's value as text),
        ``parent`` and ``parent_value`` (TAN: the attribute's parent and its value; NULL
        otherwise), ``evidence`` (float64, nats: ln P(value | [parent value,] class) -
        ln P(value | [parent value,] against); for the prior ln P(class) - ln P(against)),
        ``rank`` (0 for the prior, then 1.. by |evidence| descending, ties to the earlier
        attribute). ``top=k`` keeps the prior and the k first attributes. The prior plus all
        evidence of a row equals ln p(class | row) - ln p(against | row). ``form="wide"``
        gives the reason codes of :meth:`create_explanation_view` instead (``top`` required).
        """
        capabilities.require(self, Evidence, "explain")
        layout = Layout.make(form, top)
        with (
            session(con) as warehouse,
            open_source(warehouse, source) as src,
            self._current(warehouse) as record,
        ):
            contrast = Contrast.make(record.classes, against)
            text = self._explanation_text(
                warehouse, record, src, keys=tuple(column_names(keys, "keys")),
                contrast=contrast, layout=layout, row_number=None if keys else ROW_NUMBER,
            )  # fmt: skip
            return warehouse.fetch_text(text)

    def create_explanation_view(
        self,
        con: Connectable,
        view: str | Sequence[str],
        source: str | Sequence[str],
        *,
        keys: Sequence[str] | None = None,
        top: int | None = 3,
        against: Any = None,
        form: str = LONG,
    ) -> TableName:
        """Create (or replace) a plain-SQL explanation view over a table, view or file: what
        :meth:`explain` returns, for any SQL client, with the ``keys`` columns first (default:
        every source column but the model's features and those named like an output column,
        such as a target called ``class``). ``form="wide"`` gives one row per source row (and
        contrast) with reason codes instead: ``class``, ``against``, ``prior_evidence``, then
        ``reason_<i>``, ``reason_<i>_value``, ``reason_<i>_evidence`` for i = 1..top.

        The view is registered as the model's: a re-fit rebuilds it in the same transaction,
        ``drop`` removes it. Its name must be new or a view warehouse-ml made (a user's table or
        view, or the source itself, is a NameConflictError before anything runs). Returns the
        view's schema-qualified name.
        """
        capabilities.require(
            self, Evidence, "create_explanation_view", "the kind's explain() explains its rows"
        )
        layout = Layout.make(form, top)
        options = {
            "keys": None if keys is None else column_names(keys, "keys"),
            "against": Contrast.make(self.classes_, against).to_json(self.classes_),
            "form": layout.form,
            "top": layout.top,
        }

        return self._create_model_view(
            con, view, source, role=EXPLANATION_VIEW, created_by="create_explanation_view",
            what="an explanation view", options=options,
        )  # fmt: skip

    def attribute_ranking(self, con: Connectable, source: SourceLike | None = None) -> pa.Table:
        """Which attributes matter to this model, ranked by their mutual information with the
        class, from the model's stored parameters (no training data is read).

        Columns: ``attribute``; ``treatment`` (how MI was measured: ``categorical``, ``numeric:
        the model's <b> equal-frequency bins`` for TAN, ``numeric: <b> equal-frequency bins``
        for a Naive Bayes numeric, from its training histogram, so that its MI is
        ``rank_attributes``' on the same rows; ``gaussian: <b> equal-frequency bins of the
        fitted class normals`` for one of a model stored before the histogram); ``n`` (int64
        training rows with a value and a class); ``mi`` (float64 bits, MI(A; C)); ``parent``
        and ``cmi_parent``
        (TAN: the attribute's parent in the tree and CMI(A; parent | C) in bits, the weight that
        chose the edge; NULL for Naive Bayes and the root); ``mean_abs_evidence`` (float64
        nats: with a ``source``, the mean |evidence| of the attribute for each row's predicted
        class against its runner-up, as :meth:`explain` gives it; NULL without); ``rank``
        (int64, 1 for the highest MI, ties to the earlier feature). A kind that does not
        declare :class:`~warehouse_ml.models.capabilities.CountSummaries` is refused
        (NotSupportedError).
        """
        capabilities.require(
            self, CountSummaries, "attribute_ranking", "rank a table with rank_attributes"
        )
        with session(con) as warehouse, self._current(warehouse) as record:
            measured = relevance.model_information(warehouse, record)
            evidence = None
            if source is not None:
                with open_source(warehouse, source) as src:
                    self._check_outputs(record, src, [], [])
                    parts = self._parts(warehouse, record, src)
                    prior = literal_terms.prior_term(literal_terms.load(warehouse, record))
                    query = mean_evidence_query(
                        src.relation, prior, parts, record.classes,
                        materialized=warehouse.MATERIALIZED_STEPS,
                    )  # fmt: skip
                    row = warehouse.fetch_tree(query).to_pylist()[0]
                    evidence = {p.attribute: row[f"wml_m_{a}"] for a, p in enumerate(parts, 1)}
            return relevance.model_ranking(record.features, measured, self._links(), evidence)

    def plot_attribute_ranking(
        self, con: Connectable, source: SourceLike | None = None, ax: Any = None
    ) -> Any:
        """The attribute ranking (:meth:`attribute_ranking`) as bars of what ranks it
        (:data:`RANKING_MEASURE`: MI with the class; a decision tree's total weighted gain)
        (matplotlib, ``warehouse-ml[report]``); returns the axes. A kind without a ranking is
        refused (NotSupportedError, from :meth:`attribute_ranking`)."""
        ranked = self.attribute_ranking(con, source)
        ax = charts.axes_or_new(ax, (6.0, 0.35 * ranked.num_rows + 1.5))
        return charts.ranking(ax, ranked, *self.RANKING_MEASURE)

    def model_section(self, con: Connectable) -> ModelSection:
        """What a report shows of the fitted model (models/inspection/sections.py, rendered by
        evaluation/report.py): by default, for a kind with CountSummaries, its attribute
        ranking (bars and table), else nothing (no parts); each family that learns more
        states it (TAN its tree, a decision tree its tree, the linear families their
        coefficients, k nearest neighbours its settings and design)."""
        if not isinstance(self, CountSummaries):
            return ModelSection("Model", [])
        ranking = self.attribute_ranking(con)
        return ModelSection(
            "Attributes",
            ranking_parts(ranking, *self.RANKING_MEASURE, sections.RANKING_COLUMNS),
        )

    def _links(self) -> dict[str, tuple[str, float]]:
        """attribute -> (its parent attribute, their CMI given the class in bits) of a model
        with a tree over its attributes (TAN); none for Naive Bayes."""
        return {}

    def stored_explanation_query(
        self,
        warehouse: Warehouse,
        record: ModelRecord,
        source: Source,
        options: dict[str, Any],
    ) -> exp.Query:
        """The query of an explanation view created with ``options``, over ``record``'s model
        (a re-fit rebuilding the view)."""
        layout = Layout.make(options["form"], options["top"])
        keys = options["keys"]
        return self.explanation_query(
            ScoringContext(warehouse), record, source,
            keys=_default_keys(record, source, layout) if keys is None else keys,
            contrast=Contrast.from_json(options["against"], record.classes), layout=layout,
        )  # fmt: skip


def _default_keys(record: ModelRecord, source: Source, layout: Layout) -> list[str]:
    """An explanation view's keys by default: the source's columns but the model's features
    (their values are in the view) and any named like an output column (e.g. a target
    ``class``)."""
    taken = {n.casefold() for n in [*record.features, *layout.output_names(len(record.features))]}
    return [c for c in source.columns if c.casefold() not in taken]
