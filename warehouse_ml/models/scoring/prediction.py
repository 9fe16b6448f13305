"""Predictions, prediction queries and tables, accuracy and SQL export: what every fitted
classifier does with its parameter tables (:class:`Predictor`, a base of
:class:`warehouse_ml.models.base.Classifier`).

Every call runs in a session of the user's connection, reads the current version of the model
(``Classifier._current``: stale objects and edited tables refused), builds the scoring query of
models/scoring/query.py from the model kind's scores (``Classifier._scores``) and names its output
columns by names.py; a table it creates is owned (store/ownership.py). Registered views
(prediction views, and their rebuild with each version) are models/scoring/views.py's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from typing import Any

import pyarrow as pa
from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import (
    ColumnError,
    DataError,
)
from warehouse_ml.models.scoring import compiled, export, names
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.scoring.decision import Decision
from warehouse_ml.models.scoring.names import PREDICTION
from warehouse_ml.models.scoring.query import FiniteCheck, score_query
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.sqlgen import dialects, expressions, templates
from warehouse_ml.sqlgen.templates import TableName, column
from warehouse_ml.stats.features import NUMERIC, Feature, column_names, integer_valued
from warehouse_ml.store import ownership
from warehouse_ml.store.catalog import (
    ModelRecord,
)


class Predictor:
    """The scoring half of :class:`~warehouse_ml.models.base.Classifier`; it relies on the
    classifier's ``classes_``, ``_current`` and ``_scores``."""

    # -- scoring ------------------------------------------------------------------------
    @staticmethod
    def _check_source(record: ModelRecord, source: Source) -> None:
        """The source holds every feature of ``record``, of the fitted type's family."""
        for name in record.features:
            fitted = record.feature_types[name]
            feature = Feature(name, fitted["kind"], fitted["sql_type"])
            if source.schema.get_field_index(name) < 0:
                raise ColumnError(
                    f"source {source.description} has no column {name!r}, a feature of "
                    f"model {record.name!r}; expected the features {record.features}, "
                    f"found the columns {source.columns}"
                )
            field = source.field(name)
            if str(field.type) != feature.sql_type and not _compatible(feature, field.type):
                raise ColumnError(
                    f"column {name!r} of {source.description} has type {field.type}; "
                    f"model {record.name!r} was fitted on type {feature.sql_type}: "
                    f"{_cast_hint(name, feature.sql_type, field.type)}"
                )

    def scoring_query(
        self,
        context: ScoringContext,
        record: ModelRecord,
        source: Source,
        *,
        passthrough: Sequence[tuple[str, str]] = (),
        probability_names: Sequence[str] | None = None,
        log_probability_names: Sequence[str] | None = None,
        prediction_name: str | None = None,
        decision: Decision | None = None,
        column_order: Sequence[int] | None = None,
    ) -> exp.Query:
        """The query scoring ``source`` with ``record``'s tables, for ``context`` (its rows
        in source order when ``context.ordered``). ``passthrough``: (source column, output
        name) pairs; an output name that equals (ignoring case) one of the probability,
        log-probability or prediction names is refused (names.check_outputs). Probability names
        are given in class order, their columns output in ``column_order``
        (scoring.score_query)."""
        self._check_outputs(
            record, source, passthrough,
            [*(probability_names or []), *(log_probability_names or []), prediction_name],
        )  # fmt: skip
        if context.ordered:
            source = dataclasses.replace(source, row=names.row_number(source.columns))
        scores = self._scores(context, record, source)
        numeric = [n for n in record.features if record.feature_types[n]["kind"] == NUMERIC]
        return score_query(
            source.relation,
            scores,
            record.classes,
            passthrough=passthrough,
            probability_names=probability_names,
            log_probability_names=log_probability_names,
            prediction_name=prediction_name,
            decision=decision,
            row=source.row,
            ordered=context.ordered,
            column_order=column_order,
            materialized=context.materialized,
            finite=FiniteCheck(numeric, names.fresh("wml_finite", source.columns)),
        )

    def _check_outputs(
        self,
        record: ModelRecord,
        source: Source,
        passthrough: Sequence[tuple[str, str]],
        outputs: Sequence[str | None],
    ) -> None:
        """``source`` fits ``record`` (:meth:`_check_source`), holds the ``passthrough``
        columns, and their output names differ from the ``outputs`` (None: not output)."""
        self._check_source(record, source)
        for column_name, _ in passthrough:
            source.field(column_name)
        given = [o for o in outputs if o]
        names.check_outputs([o for _, o in passthrough], given, source.description)

    def _fetch_scores(
        self, warehouse: Warehouse, record: ModelRecord, source: Source, **options: Any
    ) -> pa.Table:
        """The rows of :meth:`scoring_query` in source order (``options`` are its keyword
        arguments). A catalog model's query text is compiled once per process, model version,
        source schema and options (models/scoring/compiled.py); a cross-validation fold's is
        built every time."""
        self._check_outputs(
            record, source, options.get("passthrough", ()),
            [*options.get("probability_names", []), *options.get("log_probability_names", []),
             options.get("prediction_name")],
        )  # fmt: skip
        warehouse.require_scan_order(options.get("passthrough", ()))
        text = compiled.model_text(
            warehouse, record, source, (type(self).__name__, "scores"),
            {name: _hashable(value) for name, value in options.items()},
            lambda opened: self.scoring_query(
                ScoringContext(warehouse, ordered=True), record, opened, **options
            ),
        )  # fmt: skip
        return warehouse.fetch_text(text)

    def _fetch_classes(self, con: Connectable, source: SourceLike, *, log: bool) -> pa.Table:
        """One float64 column per class, named and ordered as the model's views name and order
        them (renamed in Arrow: the engine sees only the library's own names)."""
        internal = [f"wml_c_{i}" for i in range(len(self.classes_))]
        with (
            session(con) as warehouse,
            open_source(warehouse, source) as src,
            self._current(warehouse) as record,
        ):
            named, order = self._probability_layout(warehouse, record)
            table = self._fetch_scores(
                warehouse, record, src, column_order=order,
                **{"log_probability_names" if log else "probability_names": internal},
            )  # fmt: skip
        return table.rename_columns([named[i] for i in order])

    def predict_proba(self, con: Connectable, source: SourceLike) -> pa.Table:
        """Class probabilities: one float64 column per class, named as the model's views name
        it (``p_<label>``, :meth:`probability_columns`) and in their order, one row per source
        row, in source order."""
        return self._fetch_classes(con, source, log=False)

    def predict_log_proba(self, con: Connectable, source: SourceLike) -> pa.Table:
        """Natural-log class probabilities (-inf for a class the row makes impossible, only
        with alpha = 0), laid out as :meth:`predict_proba`."""
        return self._fetch_classes(con, source, log=True)

    def predict(
        self,
        con: Connectable,
        source: SourceLike,
        *,
        keys: Sequence[str] = (),
        threshold: float | None = None,
        positive: Any = None,
        loss: Sequence[Sequence[float]] | None = None,
    ) -> pa.Table:
        """Predicted classes: the ``keys`` columns, then ``prediction``, in source order.

        Decision rule: argmax by default; ``threshold`` (binary models: predict ``positive``,
        default the second class, when its probability >= threshold); or ``loss``, a KxK
        matrix L[true][predicted] whose expected loss is minimised.
        """
        decision = Decision.make(self.classes_, threshold=threshold, positive=positive, loss=loss)
        with (
            session(con) as warehouse,
            open_source(warehouse, source) as src,
            self._current(warehouse) as record,
        ):
            return self._fetch_scores(
                warehouse, record, src, passthrough=[(k, k) for k in column_names(keys, "keys")],
                prediction_name=PREDICTION, decision=decision,
            )  # fmt: skip

    def view_query(
        self,
        context: ScoringContext,
        record: ModelRecord,
        source: Source,
        *,
        keys: Sequence[str] | None = None,
        decision: Decision | None = None,
    ) -> exp.Query:
        """The query behind a prediction view, for ``context``: key columns (default: every
        source column), ``p_<label>`` per class (DOUBLE; the model's stored names, in their
        column order: :meth:`probability_columns`), ``prediction``."""
        chosen = source.columns if keys is None else column_names(keys, "keys")
        named, order = self._probability_layout(context.warehouse, record)
        return self.scoring_query(
            context,
            record,
            source,
            passthrough=[(k, k) for k in chosen],
            probability_names=named,
            prediction_name=PREDICTION,
            decision=decision,
            column_order=order,
        )

    def probability_names(self, warehouse: Warehouse) -> list[str]:
        """The ``p_<label>`` columns of this model's classes, in ``classes_`` order, as its
        views and tables on ``warehouse``'s engine name them."""
        return self._probability_layout(warehouse, self.record)[0]

    def probability_columns(self, con: Connectable) -> dict[Any, str]:
        """Each class's probability column in predictions, views and tables, in their column
        order: ``{label: "p_<label>"}``. A class's column is named when the class first appears
        and keeps its name across updates and re-fits; a class an update adds gets a name no
        earlier column has, and its column comes after the earlier ones (names.py)."""
        with session(con) as warehouse:
            return dict(names.record_columns(self.record, warehouse.IDENTIFIER_BYTES))

    @staticmethod
    def _probability_layout(
        warehouse: Warehouse, record: ModelRecord
    ) -> tuple[list[str], list[int]]:
        """``record``'s probability column names in class order, and the class indices in the
        columns' output order (names.record_columns)."""
        pairs = names.record_columns(record, warehouse.IDENTIFIER_BYTES)
        place = {str(c): i for i, c in enumerate(record.classes)}
        order = [place[str(label)] for label, _ in pairs]
        named = [""] * len(order)
        for i, (_, name) in zip(order, pairs, strict=True):
            named[i] = name
        return named, order

    def score(self, con: Connectable, source: SourceLike, target: str | None = None) -> float:
        """Accuracy on a labelled ``source``, as scikit-learn's ``score``: the share of its rows
        whose prediction (argmax) equals the ``target`` column (default: the column the model
        was trained on); rows with a NULL target are left out. :meth:`score_rows` fetches the
        predictions themselves.

        Raises:
            ColumnError: the source has no such target column. DataError: no row of it has a
            target value.
        """
        with (
            session(con) as warehouse,
            open_source(warehouse, source) as src,
            self._current(warehouse) as record,
        ):
            truth = record.target if target is None else target
            if truth not in src.columns:
                raise ColumnError(
                    f"{src.description} has no target column {truth!r} to score against; "
                    "expected a labelled source (or pass target=...)"
                )
            query = self.scoring_query(
                ScoringContext(warehouse), record, src, passthrough=[(truth, "wml_truth")],
                prediction_name="wml_prediction",
            )  # fmt: skip
            row = warehouse.fetch(
                "select_view_accuracy",
                view=query.subquery(),
                truth=column("wml_truth"),
                prediction=column("wml_prediction"),
            ).to_pylist()[0]
        if row["n"] == 0:
            raise DataError(f"no row of {src.description} has a value of {truth!r} to score")
        return row["accuracy"]

    def score_rows(
        self,
        con: Connectable,
        source: SourceLike,
        *,
        keys: Sequence[str] | None = None,
        threshold: float | None = None,
        positive: Any = None,
        loss: Sequence[Sequence[float]] | None = None,
    ) -> pa.Table:
        """What a prediction view shows, fetched in source order: the ``keys`` columns (default
        all source columns), ``p_<label>`` per class and ``prediction`` (this was ``score``
        before it became accuracy)."""
        decision = Decision.make(self.classes_, threshold=threshold, positive=positive, loss=loss)
        with (
            session(con) as warehouse,
            open_source(warehouse, source) as src,
            self._current(warehouse) as record,
        ):
            warehouse.require_scan_order(src.columns if keys is None else keys)
            query = self.view_query(
                ScoringContext(warehouse, ordered=True), record, src, keys=keys,
                decision=decision,
            )  # fmt: skip
            return warehouse.fetch_tree(query)

    def create_table(
        self,
        con: Connectable,
        table: str | Sequence[str],
        source: SourceLike,
        *,
        keys: Sequence[str] | None = None,
        threshold: float | None = None,
        positive: Any = None,
        loss: Sequence[Sequence[float]] | None = None,
        progress: ProgressCallback | None = None,
    ) -> TableName:
        """Materialise the predictions of :meth:`score` as a new table.

        The name must be new, or a prediction table warehouse-ml made earlier (replaced); a
        user's table or view of that name, or the source itself, is a NameConflictError before
        anything runs. ``progress`` is called with a :class:`warehouse_ml.progress.Progress`
        (operation ``"create_table"``) before each statement; it may raise to cancel (no table
        is left).
        """
        decision = Decision.make(self.classes_, threshold=threshold, positive=positive, loss=loss)
        with (
            session(con, "create_table", progress) as warehouse,
            open_source(warehouse, source) as src,
            self._current(warehouse) as record,
        ):
            query = self.view_query(
                ScoringContext(warehouse), record, src, keys=keys, decision=decision
            )
            claimed = ownership.claim(
                warehouse, TableName.parse(table), "table", sources=src.objects
            )
            return ownership.create(
                warehouse, claimed, query, owner_kind="prediction_table", owner=record.name,
                role="predictions", created_by="create_table", lifetime=ownership.KEPT,
            )  # fmt: skip

    def sql(
        self,
        con: Connectable,
        source: SourceLike | None = None,
        *,
        keys: Sequence[str] | None = None,
        dialect: str | None = None,
        threshold: float | None = None,
        positive: Any = None,
        loss: Sequence[Sequence[float]] | None = None,
    ) -> str:
        """Self-contained SQL text of the prediction query, for ``dialect`` (default: the
        connection's own): the model's parameters written into it as literals, the source read
        by the table name given (default: the table the model was trained from; required when
        that was a file or Arrow data). It runs on a warehouse holding only that table
        (models/scoring/export.py). Output columns: ``keys`` (default: every column of the source
        when it is in this database, else none), ``p_<label>`` per class, ``prediction``."""
        decision = Decision.make(self.classes_, threshold=threshold, positive=positive, loss=loss)
        if dialect is not None:
            dialects.check_dialect(dialect)
        with session(con) as warehouse, self._current(warehouse) as record:
            src = export.export_source(warehouse, record, source, column_names(keys, "keys"))
            context = ScoringContext(warehouse, export_dialect=dialect)
            query = self.view_query(context, record, src, keys=keys, decision=decision)
            query = export.inline_parameters(warehouse, record, query)
            return templates.generate(query, context.dialect)


def _hashable(value: Any) -> Hashable:
    """An option value as a dictionary key: sequences as tuples (of tuples)."""
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    return value


def _cast_hint(name: str, fitted: str, found: pa.DataType) -> str:
    """How to score a column of type ``found`` with a model fitted on type ``fitted`` (Arrow
    type as text). The common case is a CSV file: read from its path a model keeps the file's
    text (``t``/``f``, ``yes``/``no``), while DuckDB's ``read_csv`` makes such a column
    BOOLEAN."""
    if pa.types.is_boolean(found) and fitted in ("string", "large_string", "string_view"):
        cast = templates.generate(expressions.as_text(column(name)))
        return (
            f"the model holds its values as text; score a view selecting {cast} (which spells "
            "them 'true'/'false'), or, when the text came from a CSV file ('t'/'f', "
            "'yes'/'no'), read it with read_csv(..., all_varchar=true) or score the file's "
            "path itself"
        )
    if fitted == "bool":
        cast = templates.generate(exp.cast(column(name), exp.DataType.Type.BOOLEAN))
        return (
            f"the model holds its values as booleans; score a view selecting {cast}, or a "
            "table read with read_csv's own types"
        )
    return f"score a view selecting the column CAST to the type it was fitted on ({fitted})"


def _compatible(feature: Feature, arrow_type: pa.DataType) -> bool:
    """Scoring accepts the fitted type, or another type of the same family (e.g. int32 codes
    for int64, large_string for string, integer-valued decimals for integers, a timestamp in
    another time zone, as DuckDB shows TIMESTAMPTZ in the session's)."""
    if pa.types.is_null(arrow_type):  # an all-NULL column (e.g. from Python None values)
        return True
    fitted = feature.sql_type
    now = str(arrow_type)
    if integer_valued(fitted) and integer_valued(now):
        return True
    families = (
        ("int", "uint"),
        ("string", "large_string", "string_view"),
        ("double", "float", "halffloat", "decimal"),
        ("timestamp[s, tz=", "timestamp[ms, tz=", "timestamp[us, tz=", "timestamp[ns, tz="),
    )
    return any(
        any(fitted.startswith(p) for p in family) and any(now.startswith(p) for p in family)
        for family in families
    )
