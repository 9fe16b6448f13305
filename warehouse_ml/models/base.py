"""What every classifier shares: settings, the learner protocol, fitting into the catalog,
loading (scoring and export: models/scoring/prediction.py; registered views:
models/scoring/views.py).

A subclass implements two methods: :meth:`Classifier._learn_tables`, which writes its parameter
tables from a :class:`warehouse_ml.models.training.Training` (one model, or one per
cross-validation fold), and :meth:`Classifier._scores`, which says how those tables score a row
(a kind with additive scores has it from models/capabilities.py's ``AdditiveScores``, which asks
for the terms instead). Everything else (the fit protocol here; predictions and SQL export in
prediction.py; registered views in views.py) is shared, so all models keep one contract,
including the guest contract (docs/RELIABILITY.md): every call runs in a session of the user's
connection (warehouse.session), every object it creates is owned (ownership.py), output
columns are named by names.py, and a model version's tables are verified against the
checksums its fit recorded before they score (integrity.py).
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import html
import inspect
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar

import pyarrow as pa

from warehouse_ml import charts
from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import NotFittedError, SourceError, StaleModelError
from warehouse_ml.models import capabilities
from warehouse_ml.models.inspection import relevance
from warehouse_ml.models.inspection.explaining import Explainer
from warehouse_ml.models.living.monitoring import Monitor
from warehouse_ml.models.living.updating import Updater
from warehouse_ml.models.scoring import names
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.scoring.prediction import Predictor
from warehouse_ml.models.scoring.scores import Scores
from warehouse_ml.models.scoring.views import ViewKeeper
from warehouse_ml.models.state import (
    FittedState,
    LearnedState,
    WeightingState,
    read_common_state,
)
from warehouse_ml.models.training import Training, class_counts, labelled_classes, total_rows
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.stats import validation, weights
from warehouse_ml.stats.features import Feature, column_names
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store import catalog, integrity, ownership
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging
from warehouse_ml.version import VERSION


class Classifier(Predictor, ViewKeeper, Explainer, Monitor, Updater, abc.ABC):
    """Base of the warehouse classifiers. Fitted attributes end in ``_``.

    A model kind provides:

    * ``kind`` (its catalog name) and a constructor taking its settings as keyword arguments
      stored under the same names (:meth:`get_params` reads them back);
    * ``state_class``: the class of its own fitted state (models/state.py's
      :class:`~warehouse_ml.models.state.LearnedState`), kept in the catalog with the model;
    * :meth:`_learn_tables`: write the parameter tables of the models of a
      :class:`~warehouse_ml.models.training.Training` (each row tagged with its model in column
      wml_part), naming each new table with ``tables.table(part)`` (a
      :class:`warehouse_ml.store.ownership.Staging`: registered before it is created, dropped if
      the fit fails), returning its ``state_class`` state;
    * :meth:`_scores`: how those tables score a row (per-class log-space terms, probability
      expressions, or a relation aggregating per row: models/scoring/scores.py);
    * the capabilities it has beyond this protocol, declared by naming them among its bases
      before this class, so that their hooks come first (models/capabilities.py: additive
      scores, which gives :meth:`_scores` from the kind's ``_terms``; per-attribute evidence;
      weighted fit; updates by counts; exact leave-one-out; drift and ranking from stored
      counts; folds learned at once). The calls that need one (``update``, ``drift``,
      ``attribute_ranking``, explanation views, ``fit`` with weights, exact leave-one-out)
      refuse a kind without it (NotSupportedError).
    """

    kind: ClassVar[str]
    state_class: ClassVar[type[LearnedState]]
    record_: ModelRecord | None

    def __init__(
        self,
        *,
        categorical: str | Iterable[str] | None = None,
        numeric: str | Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        self.record_ = None
        self.categorical = None if categorical is None else column_names(categorical, "categorical")
        self.numeric = None if numeric is None else column_names(numeric, "numeric")
        self.class_weight = class_weight

    @property
    def class_weight(self) -> str | dict[str, float] | None:
        """Each class's weight (None, ``"balanced"`` or label -> weight: stats/weights.py),
        checked when set: a kind without a weighted form takes only None
        (capabilities.require_weights)."""
        return self._class_weight

    @class_weight.setter
    def class_weight(self, value: str | dict[Any, float] | None) -> None:
        checked = weights.check_class_weight(value)
        capabilities.require_weights(self, None, checked)
        self._class_weight = checked

    def column_kinds(
        self, categorical: str | Iterable[str] | None, numeric: str | Iterable[str] | None
    ) -> dict[str, list[str] | None]:
        """The ``categorical`` / ``numeric`` declarations of one call on this model: the call's
        own where it gives them, else the model's (its constructor's)."""
        return {
            "categorical": self.categorical
            if categorical is None
            else column_names(categorical, "categorical"),
            "numeric": self.numeric if numeric is None else column_names(numeric, "numeric"),
        }

    def key_columns(self) -> list[str]:
        """The columns the model's own settings name as keys that deal rows (a decision
        tree's reduced-error pruning key, a linear SVM's Platt folds key): never features,
        so ``features=None`` leaves them out, as it leaves the fit's ``keys``
        (stats/keys.py). None by default."""
        return []

    # -- settings and capabilities --------------------------------------------------------
    def get_params(self) -> dict[str, Any]:
        """The model's settings: its constructor's keyword arguments and their values (stored
        in the catalog's smoothing column; ``type(model)(**model.get_params())`` is an unfitted
        copy)."""
        parameters = inspect.signature(type(self).__init__).parameters
        return {
            name: getattr(self, name)
            for name, p in parameters.items()
            if p.kind is inspect.Parameter.KEYWORD_ONLY
        }

    def learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> LearnedState:
        """Write the parameter tables of the models of ``training`` (:meth:`_learn_tables`) and
        return their state: the one entry every fit, cross-validation and update learns by. A
        training the kind cannot learn whole is refused before anything runs
        (capabilities.require_learnable)."""
        capabilities.require_learnable(self, training)
        return self._learn_tables(warehouse, training, tables, check)

    # -- what a model kind implements ----------------------------------------------------
    @abc.abstractmethod
    def _learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> LearnedState:
        """Write the parameter tables of the models of ``training``, each named by
        ``tables.table(part)`` and holding every model (column wml_part).

        ``check`` is the high-cardinality check, to make with the categorical attributes'
        distinct values (``check.of_counts``) before any statement heavier than the counts.
        Returns the family's own state of the models (an instance of ``state_class``), kept
        in the catalog.
        """

    @abc.abstractmethod
    def _scores(self, context: ScoringContext, record: ModelRecord, source: Source) -> Scores:
        """Each class's score of a row of ``source`` (step 1 of models/scoring/query.py) with
        the model in ``record`` (whose parameter tables ``context.warehouse`` can read), for
        ``context``'s dialect (models/scoring/context.py): the sum of the
        terms of a kind with additive scores (models/capabilities.py ``AdditiveScores``),
        the family's own scores otherwise."""

    def record_of(
        self,
        warehouse: Warehouse,
        tables: Staging,
        training: Training,
        learned: LearnedState,
        *,
        name: str | None = None,
        n_null_target: int = 0,
        previous: ModelRecord | None = None,
        noted: FittedState | None = None,
    ) -> ModelRecord:
        """The one constructor of a model's record: the models just learned in ``tables`` from
        ``training``, with the family's state ``learned``. With a ``name``, a fitted model's
        catalog row (its tables checksummed for integrity.py); without, a cross-validation's
        models, not catalogued (their tables found by ``locations``). ``n_rows``, ``classes``
        and the state's ``class_rows`` (each class's training rows) are model 0's; its
        ``probability_columns``: each class's probability column, in output order; the
        classes of ``previous`` (the version this one replaces, if any) keep theirs
        (names.carried_columns). The rest of the state is ``noted`` (the caller's: weighting,
        batches, selection, partition column, a caller's facts), whose tables, checksums,
        class rows, probability columns and learned state are replaced."""
        roles = {role: tables.named(role) for role in tables.roles}
        width = warehouse.IDENTIFIER_BYTES
        columns = names.carried_columns(
            [] if previous is None else names.record_columns(previous, width),
            [c.value for c in training.classes[0]],
            width,
        )
        return ModelRecord(
            name=tables.version if name is None else name,
            model_id=tables.version,
            kind=self.kind,
            target=training.target,
            target_type=str(training.source.field(training.target).type),
            features=[f.name for f in training.features],
            feature_types={f.name: f.to_json() for f in training.features},
            smoothing=self.get_params(),
            source=training.source.description,
            n_rows=total_rows(training.classes[0]),
            n_null_target=n_null_target,
            classes=[c.value for c in training.classes[0]],
            state=dataclasses.replace(
                noted or FittedState(),
                tables=tuple(tables.roles),
                checksums=None if name is None else integrity.checksums(warehouse, roles),
                class_rows=tuple(c.n_rows for c in training.classes[0]),
                probability_columns=tuple(columns),
                learned=learned,
            ),
            created_at=None if name is None else ownership.now(),
            library_version=VERSION,
            locations=roles if name is None else None,
        )

    @classmethod
    def from_record(cls, record: ModelRecord) -> Classifier:
        """The fitted model described by a catalog row (its smoothing holds the constructor's
        keyword arguments)."""
        model = cls(**record.smoothing)
        model.record_ = record
        return model

    # -- fitted state ---------------------------------------------------------------------
    @property
    def record(self) -> ModelRecord:
        """The catalog row of the fitted model."""
        if self.record_ is None:
            raise NotFittedError(
                f"this {type(self).__name__} is not fitted: call fit(...) or warehouse_ml.load(...)"
            )
        return self.record_

    @property
    def name_(self) -> str:
        """The model's name in the catalog."""
        return self.record.name

    @property
    def classes_(self) -> list[Any]:
        """Class labels, in ascending order of the target's values (the column order of
        :meth:`predict_proba`)."""
        return list(self.record.classes)

    @property
    def feature_names_in_(self) -> list[str]:
        """The feature columns, in the order they were given or found in the source."""
        return list(self.record.features)

    @property
    def features_(self) -> list[Feature]:
        """Each feature's name, kind (categorical or numeric) and type at fit."""
        types = self.record.feature_types
        return [Feature(n, types[n]["kind"], types[n]["sql_type"]) for n in self.record.features]

    @property
    def n_rows_(self) -> int:
        """Training rows (rows with a non-NULL target)."""
        return self.record.n_rows

    @property
    def n_null_target_(self) -> int:
        """Rows left out of training because their target was NULL."""
        return self.record.n_null_target

    @property
    def verified_(self) -> bool:
        """Whether the model's parameter tables have checksums to verify (catalog format 2 on);
        models stored by earlier versions score unverified. (The checksums are compared under
        the engine version that took them, see integrity.py.)"""
        return self.record.state.checksums is not None

    def parameters(self, con: Connectable) -> dict[str, pa.Table]:
        """Every parameter table of the fitted model, by part name (e.g. ``classes``,
        ``categorical``), rows sorted by all columns. Columns are documented by each model."""
        with session(con) as warehouse, self._current(warehouse) as record:
            return {part: catalog.read_part(warehouse, record, part) for part in record.parts}

    @contextlib.contextmanager
    def _current(self, warehouse: Warehouse) -> Iterator[ModelRecord]:
        """The model's record, its tables verified against its fit's checksums (once per
        process and version). A missing table of a model that has been re-fitted or dropped
        since this object was made is a StaleModelError that says how to get the current one."""
        record = self.record
        if record.locations is None:
            self._refuse_stale(warehouse, record)
        try:
            if record.locations is None:
                integrity.verify(
                    warehouse, record.name, record.model_id, record.state.checksums,
                    {part: record.table(part) for part in record.parts},
                )  # fmt: skip
            yield record
        except SourceError:
            if record.locations is None:
                self._refuse_stale(warehouse, record)
            raise

    @staticmethod
    def _refuse_stale(warehouse: Warehouse, record: ModelRecord) -> None:
        """A StaleModelError when the catalog no longer holds ``record``'s version: checked
        on every call, as a process may score a version from its cached literals and query
        text (models/keyed_terms/literal_terms.py, models/scoring/compiled.py) without reading its
        tables."""
        now = catalog.current_version(warehouse, record.name)
        if now != record.model_id:
            how = (
                "has been dropped"
                if now is None
                else f"has been re-fitted since (version {record.model_id} -> {now})"
            )
            raise StaleModelError(
                f"model {record.name!r} {how}; this object refers to the old version, "
                f"whose tables are gone: load the current one with "
                f"warehouse_ml.load(con, {record.name!r})"
            )

    # -- fit --------------------------------------------------------------------------------
    def fit(
        self,
        con: Connectable,
        source: SourceLike,
        target: str,
        *,
        features: str | Sequence[str] | None = None,
        categorical: str | Iterable[str] | None = None,
        numeric: str | Iterable[str] | None = None,
        keys: str | Iterable[str] | None = None,
        name: str | None = None,
        details: dict[str, Any] | None = None,
        allow_high_cardinality: bool = False,
        progress: ProgressCallback | None = None,
        sample_weight: str | None = None,
        replace: bool = False,
    ) -> Classifier:
        """Learn the model from ``source`` inside the warehouse and store it in the catalog.

        Args:
            con: a DuckDB connection, a database path, or a Warehouse.
            source: table/view name, Arrow table or reader, or a Parquet/CSV path.
            target: the class column. Rows where it is NULL are left out (counted in
                ``n_null_target_``).
            features: feature columns (a list, or one name); None means every column but the
                target, ``keys``, ``sample_weight`` and the model's own key
                (:meth:`key_columns`); ``"top:k"`` the k of those of highest MI with the
                class (models/inspection/relevance.py).
            categorical, numeric: per-column overrides of the type rule (stats/features.py)
                and of the integer rule (stats/integer_rule.py); default: the model's own
                (given to its constructor).
            keys: identifier columns never used as features.
            name: the model's name in the catalog; default ``<kind>_<target>``. A model of the
                same name, kind, target and source is replaced atomically (a re-fit: its
                views are rebuilt); one of another kind, target or source only with
                ``replace=True`` (a NameConflictError naming it otherwise, before anything
                runs).
            details: extra JSON-able facts stored in the catalog row's details (e.g. the
                model-selection comparison that chose these settings, ``selection``; the
                others are the state's ``extra``, models/state.py).
            allow_high_cardinality: learn categorical attributes that look like identifiers or
                have more than ``validation.MAX_CATEGORIES`` distinct values instead of
                refusing them (see validation.py; a warning is still given).
            progress: called with a :class:`warehouse_ml.progress.Progress` (operation
                ``"fit"``) before each statement; it may raise to cancel the fit, which then
                leaves the catalog as it was.
            sample_weight: a numeric column of non-negative row weights (never a feature):
                every count becomes a sum of weights, times the model's ``class_weight``
                (stats/weights.py), as scikit-learn's ``fit(X, y, sample_weight=...)``.
            replace: replace a model of the name whatever its kind, target and source.

        Returns:
            self, fitted.

        Raises:
            SourceError, ColumnError, DataError, HighCardinalityError: bad input (see
            docs/RELIABILITY.md); the catalog and any old model of that name are unchanged.
            NameConflictError: a model of the name is of another kind, target or source
            (without ``replace``), or was made by a call of the library this fit is not
            (``details``' ``made_by``, store/catalog.py ``refuse_replacing``).
        """
        capabilities.require_weights(self, sample_weight, self.class_weight)
        name = catalog.validate_name(name if name is not None else f"{self.kind}_{target}")
        with session(con, "fit", progress) as warehouse, open_source(warehouse, source) as src:
            warehouse.require_writing(
                f"model {name!r} (its parameter tables and catalog row, in schema wml)"
            )
            noted = FittedState.noted(details, name)
            catalog.ensure(warehouse)  # before reading: a legacy catalog is migrated first
            previous = catalog.find(warehouse, name, read_common_state)
            fitting = (self.kind, target, src)
            catalog.refuse_replacing(warehouse, previous, fitting, noted.made_by, replace)
            identifiers = [
                *column_names(keys, "keys"), *([sample_weight] if sample_weight else []),
                *self.key_columns(),
            ]  # fmt: skip
            chosen, top = relevance.candidates(
                warehouse, src, target, features, keys=identifiers,
                **self.column_kinds(categorical, numeric),
            )  # fmt: skip
            if top is not None:
                chosen = relevance.top_features(warehouse, src.relation, target, chosen, top)
            classes, n_null = class_counts(warehouse, src, target)
            weighting = weights.weighting(
                warehouse, src, target, sample_weight, self.class_weight, classes,
                names.fresh("wml_weight", src.columns),
            )  # fmt: skip
            counted = src
            if weighting is not None:
                counted = weighting.source(src, target)
                classes, _ = labelled_classes(warehouse, counted, target, weighting.column)
                weights.check_class_totals(classes, src.description, target, weighting)
                noted = dataclasses.replace(noted, weighting=WeightingState.of(weighting))
            self._check_views_keep(warehouse, previous, [c.value for c in classes])
            with Staging(
                warehouse, owner_kind="model", owner=name, created_by="fit",
                version=catalog.new_model_id(), lifetime=ownership.MODEL,
            ) as tables:  # fmt: skip
                check = validation.CardinalityCheck(
                    src.description, chosen, total_rows(classes),
                    allow_high_cardinality=allow_high_cardinality,
                )  # fmt: skip
                training = Training(
                    counted, target, chosen, [classes],
                    weight=None if weighting is None else weighting.column,
                )  # fmt: skip
                learned = self.learn_tables(warehouse, training, tables, check)
                validation.check_learned(warehouse, src.description, tables, classes)
                record = self.record_of(
                    warehouse, tables, training, learned, name=name, n_null_target=n_null,
                    previous=previous, noted=noted,
                )  # fmt: skip
                catalog.publish(
                    warehouse, record, read_common_state,
                    lambda r, views: self._rebuild_views(warehouse, r, views),
                )  # fmt: skip
        integrity.mark_verified(record.model_id)
        self.record_ = record
        return self

    def _repr_html_(self) -> str:
        """A notebook's card of the model: its settings and, fitted, the key facts of its
        catalog row and its main picture (:meth:`card_picture`; left out without matplotlib)."""
        if self.record_ is None:
            return f'<pre class="{charts.CARD_CLASS}">{html.escape(repr(self))}</pre>'
        record = self.record_
        facts = [
            ("model", f"{record.name} ({record.kind})"),
            ("target", f"{record.target}: {', '.join(str(c) for c in record.classes)}"),
            ("trained on", f"{record.source}, {record.n_rows} rows"),
            ("attributes", ", ".join(f"{f.name} ({f.kind})" for f in self.features_)),
            (
                "settings",
                ", ".join(f"{k}={v}" for k, v in self.get_params().items() if v is not None),
            ),
            ("fitted", f"{record.created_at} UTC, warehouse-ml {record.library_version}"),
        ]
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td style='text-align:left'>"
            f"{html.escape(v)}</td></tr>"
            for k, v in facts
        )
        picture = self.card_picture() if charts.available() else ""
        return f'<div class="{charts.CARD_CLASS}"><table>{rows}</table>{picture}</div>'

    def card_picture(self) -> str:
        """The model's main picture as inline SVG: what it can draw without a connection (its
        classes' training rows; TAN: its tree); "" for a model stored before the catalog kept
        class rows. Needs matplotlib."""
        rows = self.record.state.class_rows
        if rows is None:
            return ""
        labels = [str(c) for c in self.record.classes]
        return charts.svg(
            lambda ax: charts.class_rows(ax, labels, rows), (4.0, 0.3 * len(rows) + 1.2)
        )

    def __repr__(self) -> str:
        state = f"name={self.record_.name!r}" if self.record_ is not None else "unfitted"
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params}) [{state}]"
