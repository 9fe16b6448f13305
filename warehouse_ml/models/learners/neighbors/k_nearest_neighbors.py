"""k nearest neighbours: the training rows stored in the warehouse, every prediction an exact
top-k search in SQL.

Coordinates follow the linear families' scaling (models/learners/shared/design.py): a numeric
attribute standardised by the training mean and population standard deviation (as
``StandardScaler``; NULL: 0, the mean), learned in SQL; a categorical attribute compared by the
overlap distance, 0 for the same level and 1 otherwise (a NULL or unseen value is a value of
its own). The distance over those coordinates is the ``metric``: Euclidean (the default),
Manhattan, Minkowski of power ``p`` or cosine (models/learners/neighbors/metrics.py states each
over the categorical attributes and the cosine's zero vector; models/learners/neighbors/search.py
states the tie rule: equal distances go to the stored row of smaller key, the row's rank in the
order of its stored values).

Parameter tables (each led by ``wml_part``, 0 for a fitted model):

* ``classes``: class_index, class_label, n (training rows), log_prior (the training prior);
* ``design``: column_index, attribute, kind, level, mean, scale (models/learners/shared/design.py: a
  categorical attribute's level number is its position among the attribute's rows);
* ``neighbours``: neighbour (BIGINT, the key), class_index, then ``x_<i>`` per feature in
  feature order: the standardised value (DOUBLE) or the level number (INTEGER, -1 for NULL).

Scoring: each scored row's k nearest stored rows (with ``ties="all"`` every stored row within
the k-th distance, as Weka's IBk: ties.py) vote: uniform, 1 each; with
``weights="distance"``, 1 / distance, or, for a row with neighbours at distance 0, those alone,
1 each, as scikit-learn. The votes renormalised are the probabilities (models/scoring/scores.py,
``AggregatedScores``). The search (search.py) is the portable ROW_NUMBER window, a
LATERAL top-k per scored row where the adapter declares ``LATERAL_TOP_K`` (PostgreSQL), or one
bounded by the engine's top-k aggregate where it declares ``TOP_K_AGGREGATE`` (DuckDB, two
passes over the stored rows); SQL exported for another dialect is always portable. On DuckDB a
filter on a prediction view's key reaches the source before the search.

k-NN counts no weights (``sample_weight`` and ``class_weight`` are refused by every call that
takes them, the constructor too: models/capabilities.py ``require_weights``) and has no update
by counts: a new batch is a re-fit on every row (``update`` is refused). Choosing k by
cross-validation is :func:`warehouse_ml.evaluation.k_nearest_selection.select_k` (``wml.select_k``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import ErrorsOfEveryK, ScoresByStoredRows
from warehouse_ml.models.inspection.explaining import ROW_NUMBER
from warehouse_ml.models.inspection.reasons import LONG, refuse_evidence_options
from warehouse_ml.models.inspection.sections import ModelSection, TablePart
from warehouse_ml.models.learners.neighbors.columns import (
    CLASS_INDEX,
    NEIGHBOUR,
    RANK,
    REDUCED,
    ROW_ID,
    coordinate,
)
from warehouse_ml.models.learners.neighbors.metrics import DEFAULT_P, Metric, metric_of
from warehouse_ml.models.learners.neighbors.search import (
    Neighbours,
    Search,
    Votes,
    search_for,
)
from warehouse_ml.models.learners.neighbors.state import KNearestNeighborsState
from warehouse_ml.models.learners.neighbors.ties import KEY, tie_rule
from warehouse_ml.models.learners.shared.classes import create_classes_table
from warehouse_ml.models.learners.shared.design import Design
from warehouse_ml.models.learners.shared.parameters import keep_checked
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.scoring.scores import AggregatedScores
from warehouse_ml.models.scoring.steps import INPUT, ROW
from warehouse_ml.models.training import FoldedRows, Training
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import Feature, column_names
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging


def stored_rows(design: Design, training: Training, part: int = 0) -> exp.Query:
    """The ``neighbours`` table's rows (module docstring) of ``training``'s labelled rows as
    model ``part``, each keyed by its rank in the order of its coordinates, then its class
    index (classes numbered as ``training.classes[0]``)."""
    source = training.source
    klass = exp.Case(this=expressions.as_text(column(training.target, "s")))
    for c in training.classes[0]:
        klass.when(literal(c.label), literal(c.index), copy=False)
    coordinates = [coordinate(i) for i in range(len(design.features))]
    rows = templates.build(
        "select_knn_training_rows",
        source=source.relation,
        target=training.target,
        coordinates=[
            alias(klass, CLASS_INDEX),
            *(alias(v, name) for v, name in zip(design.values(source), coordinates, strict=True)),
        ],
    )
    order = exp.Order(
        expressions=[exp.Ordered(this=column(c)) for c in [*coordinates, CLASS_INDEX]]
    )
    key = exp.Window(this=exp.RowNumber(), order=order)
    return exp.select(
        alias(exp.cast(literal(part), "INTEGER"), "wml_part"),
        alias(expressions.as_bigint(key), NEIGHBOUR),
        alias(column(CLASS_INDEX, "r"), CLASS_INDEX),
        *(alias(column(c, "r"), c) for c in coordinates),
    ).from_(rows.subquery("r"))


class KNearestNeighbors(ErrorsOfEveryK, ScoresByStoredRows, Classifier):
    """k nearest neighbours by a distance of standardised attributes and the overlap distance of
    categorical ones (module docstring).

    Args:
        k: neighbours that vote, >= 1 (all the training rows when there are fewer).
        weights: ``"uniform"`` (each neighbour one vote) or ``"distance"`` (1 / distance, as
            scikit-learn's).
        metric: ``"euclidean"``, ``"manhattan"``, ``"minkowski"`` (of power ``p``) or
            ``"cosine"`` (1 - cos, as scikit-learn's; metrics.py).
        p: the Minkowski power, a finite number >= 1 (2: Euclidean, 1: Manhattan); only
            ``metric="minkowski"`` takes another than 2.
        ties: which stored rows tied at the k-th distance vote: ``"key"`` (exactly k, ties
            to the stored row of smaller key; scikit-learn also keeps k) or ``"all"`` (every
            one, k or more, as Weka's IBk; ties.py).
        categorical, numeric: columns to model as categorical / numeric whatever their type
            (stats/features.py).
        class_weight: None only: k-NN has no weighted form (any other value is a
            NotSupportedError, as ``sample_weight`` is everywhere).
    """

    kind = "k_nearest_neighbors"
    state_class = KNearestNeighborsState

    def __init__(
        self,
        *,
        k: int = 5,
        weights: str = "uniform",
        metric: str = "euclidean",
        p: float = DEFAULT_P,
        ties: str = KEY,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        keep_checked(
            self, KNearestNeighbors.kind, k=k, weights=weights, metric=metric, p=p, ties=ties
        )
        metric_of(self.metric, self.p)  # a power other than the default needs minkowski

    def _errors_of_every_k(
        self, warehouse: Warehouse, folded: FoldedRows, ks: Sequence[int], tables: Staging,
        check: CardinalityCheck,
    ) -> dict[int, float]:  # fmt: skip
        """Every k's error from one ranked table of each held-out row's neighbours
        (models/learners/neighbors/folds.py)."""
        from warehouse_ml.models.learners.neighbors import folds  # it builds on this module

        return folds.fold_errors(warehouse, folded, ks, self, tables, check)

    def _learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> KNearestNeighborsState:
        """The design (one count scan, one moments scan), then the ``neighbours`` table: the
        labelled training rows' coordinates, class and key (module docstring)."""
        design = Design.learn(warehouse, training, check)
        create_classes_table(
            warehouse, tables.table("classes"), training.classes, 0.0, training.count_type
        )
        design.write(warehouse, tables.table("design"))
        warehouse.run_tree(
            templates.create_table_as(tables.table("neighbours"), stored_rows(design, training))
        )
        return KNearestNeighborsState(stored_rows=sum(c.n_rows for c in training.classes[0]))

    # -- scoring --------------------------------------------------------------------------
    @property
    def _metric(self) -> Metric:
        """The metric the model measures (``metric`` with ``p``; metrics.py)."""
        return metric_of(self.metric, self.p)

    def neighbour_search(
        self,
        features: Sequence[Feature],
        stored: exp.Query,
        search: Search,
        on: exp.Expression | None = None,
    ) -> Neighbours:
        """The search of this model's k nearest among ``stored`` (rows of the ``neighbours``
        table, or of every fold's, matched to a scored row ``on`` a condition)."""
        return Neighbours(features, stored, self.k, search, self._metric, tie_rule(self.ties), on)

    def neighbour_votes(self, n_classes: int) -> Votes:
        """How this model's neighbours vote among ``n_classes`` classes."""
        return Votes(n_classes, self.weights, self._metric)

    def _search(self, context: ScoringContext, record: ModelRecord) -> tuple[Design, Neighbours]:
        """The design and the search of the fitted model ``record`` for ``context``: the
        engine's own search when the SQL runs there, the portable one for SQL exported to
        another dialect."""
        design = Design.read(context.warehouse, record)
        stored = exp.select(exp.Star()).from_(record.parameter_relation("neighbours", "n"))
        search = search_for(context.warehouse if context.native else None)
        return design, self.neighbour_search(design.features, stored, search)

    @staticmethod
    def _scored(
        design: Design, source: Source, carried: Sequence[exp.Expression]
    ) -> tuple[exp.Select, list[str]]:
        """The scored rows of the input ``s``: the ``carried`` items and the coordinates; and
        the carried columns' names."""
        coordinates = [alias(v, coordinate(i)) for i, v in enumerate(design.values(source))]
        return exp.select(*carried, *coordinates), [item.alias_or_name for item in carried]

    def _scores(
        self, context: ScoringContext, record: ModelRecord, source: Source
    ) -> AggregatedScores:
        """The votes of each row's k nearest stored rows (module docstring)."""
        design, search = self._search(context, record)
        votes = self.neighbour_votes(len(record.classes))

        def relation(carried: Sequence[exp.Expression]) -> exp.Query:
            scored, kept = self._scored(design, source, carried)
            numbered = ROW if ROW in kept else None
            return search.voted(scored.from_(exp.to_table(INPUT).as_("s")), kept, votes, numbered)

        return AggregatedScores(relation, len(record.classes))

    # -- inspection -----------------------------------------------------------------------
    @property
    def stored_rows_(self) -> int:
        """The training rows stored as candidate neighbours."""
        learned = self.record.state.learned
        assert isinstance(learned, KNearestNeighborsState)
        return learned.stored_rows

    def model_section(self, con: Connectable) -> ModelSection:
        """The search's settings (k, weights, metric, the stored rows) and each attribute's
        coordinate: a numeric attribute's standardisation (mean, scale), a categorical
        attribute's levels (each other level at distance 1)."""
        with session(con) as warehouse, self._current(warehouse) as record:
            design = Design.read(warehouse, record)
        shown = {k: v for k, v in self.get_params().items() if k not in ("categorical", "numeric")}
        settings = pa.table(
            {
                "setting": [*shown, "stored rows"],
                "value": [*(str(v) for v in shown.values()), str(self.stored_rows_)],
            }
        )
        coordinates = []
        for feature in design.features:
            columns = [design.columns[j - 1] for j in design.indices(feature.name)]
            numeric = columns[0] if columns and columns[0].level is None else None
            coordinates.append(
                {
                    "attribute": feature.name, "kind": feature.kind,
                    "levels": None if numeric else len(columns),
                    "mean": numeric.mean if numeric else None,
                    "scale": numeric.scale if numeric else None,
                }
            )  # fmt: skip
        note = (
            "The distance is measured on these coordinates: a number standardised, "
            "(x - mean) / scale (NULL: 0), a categorical value 0 from the same level and 1 "
            "from any other (a NULL or unseen value is a value of its own)."
        )
        return ModelSection(
            "Neighbours",
            [
                TablePart("Search", settings),
                TablePart("Coordinates", pa.Table.from_pylist(coordinates), note),
            ],
        )

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
        """Each row's neighbours (k, or more with ``ties="all"``), one row per neighbour, in
        source order, then rank order, then key order. Columns: the ``keys`` columns
        (default: ``row``, the 0-based source position, int64), ``rank`` (int64, 1 the
        nearest; the tie rule of ties.py: with ``ties="all"`` rows at one distance
        share a rank, 1 + the number of stored rows nearer),
        ``neighbour`` (int64: the stored row's key in the ``neighbours`` table),
        ``distance`` (float64, in standardised units), ``class`` (the neighbour's class
        label, as text). The row's probabilities are its neighbours' votes renormalised.
        ``top``, ``against`` and ``form="wide"`` are refused (NotSupportedError)."""
        refuse_evidence_options(
            self.kind,
            "lists each row's nearest neighbours",
            top,
            against,
            form,
        )
        with (
            session(con) as warehouse,
            open_source(warehouse, source) as src,
            self._current(warehouse) as record,
        ):
            chosen = column_names(keys, "keys")
            outputs = ["rank", "neighbour", "distance", "class"]
            self._check_outputs(record, src, [(k, k) for k in chosen], outputs)
            row = names.fresh("wml_row", src.columns)
            numbered = templates.build("select_numbered", source=src.relation, row=row)
            shown = [(c, c) for c in chosen] or [(row, ROW_NUMBER)]
            carried = [
                alias(column(row, "s"), ROW_ID),
                *(alias(column(c, "s"), f"wml_k_{i}") for i, (c, _) in enumerate(shown)),
            ]
            design, search = self._search(ScoringContext(warehouse), record)
            scored, grouped = self._scored(design, src, carried)
            ranked = search.ranked(scored.from_(numbered.subquery("s")), grouped)
            first = column(grouped[1], "r")
            if not chosen:
                first = exp.Sub(this=first, expression=literal(1))
            kept = zip(grouped[2:], shown[1:], strict=True)
            query = (
                exp.select(
                    alias(first, shown[0][1]),
                    *(alias(column(g, "r"), name) for g, (_, name) in kept),
                    alias(expressions.as_bigint(column(RANK, "r")), "rank"),
                    alias(column(NEIGHBOUR, "r"), "neighbour"),
                    alias(self._metric.distance(column(REDUCED, "r")), "distance"),
                    alias(column("class_label", "c"), "class"),
                )
                .from_(ranked.subquery("r"))
                .join(
                    record.parameter_relation("classes", "c"),
                    on=expressions.all_equal(
                        (column("wml_part", "c"), literal(0)),
                        (column(CLASS_INDEX, "c"), column(CLASS_INDEX, "r")),
                    ),
                )
                .order_by(column(ROW_ID, "r"), column(RANK, "r"), column(NEIGHBOUR, "r"))
            )
            return warehouse.fetch_tree(query)
