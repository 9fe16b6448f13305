"""What every classifier shares: settings, the learner protocol, fitting into the catalog,
loading (scoring, views and export: models/prediction.py).

A subclass (Naive Bayes, TAN) implements two methods: :meth:`Classifier._learn`, which writes
its parameter tables from a source, and :meth:`Classifier._terms`, which says how those tables
score a row. Everything else (the fit protocol here; predictions, views and SQL export in
prediction.py) is shared, so all models keep one contract, including the guest contract
(docs/RELIABILITY.md): every call runs in a session of the user's connection
(warehouse.session), every object it creates is owned (ownership.py), output columns are named
by names.py, and a model version's tables are verified against the checksums its fit recorded
before they score (integrity.py).
"""

from __future__ import annotations

import abc
import contextlib
import decimal
import inspect
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, ClassVar

import pyarrow as pa

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import (
    DataError,
    NotFittedError,
    SourceError,
    StaleModelError,
)
from warehouse_ml.models.prediction import Predictor
from warehouse_ml.models.scoring import Term
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.sqlgen import templates
from warehouse_ml.stats import validation
from warehouse_ml.stats.features import Feature
from warehouse_ml.stats.integer_rule import choose_features
from warehouse_ml.store import catalog, integrity, ownership
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging
from warehouse_ml.version import VERSION

MAX_CLASSES = 256
"""Most classes a model may have: each class is a column of every scoring step, and past a few
hundred classes the scoring SQL grows too wide for engines to plan in reasonable time."""


def _python_label(value: Any) -> Any:
    """A class label as stored in the catalog (JSON): str, int (an integer-valued decimal such
    as a HUGEINT too), bool, or text for other types."""
    if isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, decimal.Decimal) and value == value.to_integral_value():
        return int(value)
    return str(value)


class Classifier(Predictor, abc.ABC):
    """Base of the warehouse classifiers. Fitted attributes end in ``_``.

    A model kind provides:

    * ``kind`` (its catalog name) and a constructor taking its settings as keyword arguments
      stored under the same names (:meth:`get_params` reads them back);
    * optionally :meth:`exact_leave_one_out`: True when k-fold cross-validation with k = n has
      an exact count-subtraction form (evaluation/loo.py);
    * :meth:`_learn`: write the parameter tables of one model, naming each new table with
      ``tables.table(part)`` (a :class:`warehouse_ml.store.ownership.Staging`: registered before it
      is created, dropped if the fit fails);
    * :meth:`_terms`: the log-space terms that score a row with those tables;
    * optionally :meth:`_partitioned_scoring` / :meth:`_learn_partitioned`: every
      cross-validation fold's model in one set of tables, scored in one query.
    """

    kind: ClassVar[str]
    record_: ModelRecord | None

    def __init__(
        self, *, categorical: Iterable[str] | None = None, numeric: Iterable[str] | None = None
    ) -> None:
        self.record_ = None
        self.categorical = None if categorical is None else list(categorical)
        self.numeric = None if numeric is None else list(numeric)

    def column_kinds(
        self, categorical: Iterable[str] | None, numeric: Iterable[str] | None
    ) -> dict[str, list[str] | None]:
        """The ``categorical`` / ``numeric`` declarations of one call on this model: the call's
        own where it gives them, else the model's (its constructor's)."""
        return {
            "categorical": self.categorical if categorical is None else list(categorical),
            "numeric": self.numeric if numeric is None else list(numeric),
        }

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

    def exact_leave_one_out(self) -> bool:
        """Whether leave-one-out cross-validation of this kind has an exact form computed from
        the full counts (evaluation/loo.py) instead of n fold models."""
        return False

    # -- what a model kind implements ----------------------------------------------------

    @abc.abstractmethod
    def _learn(
        self,
        warehouse: Warehouse,
        source: Source,
        target: str,
        features: list[Feature],
        classes: list[dict[str, Any]],
        tables: Staging,
        check: validation.CardinalityCheck,
    ) -> dict[str, Any]:
        """Write the parameter tables of a new model, each named by ``tables.table(part)``.

        ``classes`` holds one dict per class (class_index, class_label, value, n) in
        ``classes_`` order. ``check`` is the high-cardinality check, to make as soon as the
        attributes' distinct values are known when statements heavier than the counts follow
        (TAN's pair counts); else :func:`validation.check_learned` makes it after learning.
        Returns kind-specific details for the catalog.
        """

    def _partitioned_scoring(self, features: Sequence[Feature]) -> bool:
        """Whether :meth:`_terms` can score with tables holding one model per partition (the
        record's details name the rows' partition column) for these features: cross-validation
        then learns them with :meth:`_learn_partitioned` and scores every fold in one query
        instead of one query per fold (default: no)."""
        return False

    def _learn_partitioned(
        self,
        warehouse: Warehouse,
        split: Source,
        target: str,
        features: list[Feature],
        fold: str,
        fold_classes: list[list[dict[str, Any]]],
        tables: Staging,
        check: validation.CardinalityCheck,
    ) -> dict[str, Any]:
        """Learn every fold's model at once (cross-validation, when
        :meth:`_partitioned_scoring`) from the fold assignment ``split``: fold f trains on the
        rows whose ``fold`` column differs from f, with class counts ``fold_classes[f]``. The
        scoring tables are named by ``tables``, each holding all folds (column wml_part = f).
        ``check``: the high-cardinality check of the whole source, made from the per-fold
        counts before anything heavier. Returns the catalog details."""
        raise NotImplementedError(f"{type(self).__name__} does not learn partitioned models")

    @abc.abstractmethod
    def _terms(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
        """The log-space terms that score ``source`` with the model in ``record`` (whose
        parameter tables ``warehouse`` can read)."""

    def _learn_folds(
        self,
        warehouse: Warehouse,
        split: Source,
        target: str,
        features: list[Feature],
        fold: str,
        fold_classes: list[list[dict[str, Any]]],
        tables: Staging,
        check: validation.CardinalityCheck,
    ) -> list[ModelRecord]:
        """Learn one model per fold (for cross-validation) from the fold assignment ``split``.

        Fold f trains on the rows whose ``fold`` column differs from f, with class counts
        ``fold_classes[f]``, in tables named by ``tables.part(f"f{f}")``. Returns each fold's
        (uncatalogued) record. It fits each fold from its rows (one scan per fold);
        cross-validation uses it when :meth:`_partitioned_scoring` says no (TAN with numeric
        attributes, whose bins differ per fold), the folds then being scored one statement
        each. ``check`` is handed to each fold's :meth:`_learn` (it is made once).
        """
        records = []
        for index, classes in enumerate(fold_classes):
            rows = templates.build(
                "select_rows_outside_fold", split=split.relation, fold=fold, index=index
            )
            training = Source(rows.subquery("wml_training"), split.schema, split.description, True)
            fold_tables = tables.part(f"f{index}")
            detail = self._learn(warehouse, training, target, features, classes, fold_tables, check)
            records.append(
                self._uncatalogued(fold_tables, target, split, features, classes, detail)
            )
        return records

    def _uncatalogued(
        self,
        tables: Staging,
        target: str,
        source: Source,
        features: Sequence[Feature],
        classes: Sequence[dict[str, Any]],
        details: dict[str, Any],
    ) -> ModelRecord:
        """A record of a model learned in ``tables`` that is not in the catalog (a
        cross-validation fold's)."""
        return ModelRecord(
            name=tables.version,
            model_id=tables.version,
            kind=self.kind,
            target=target,
            target_type=str(source.field(target).type),
            features=[f.name for f in features],
            feature_types={f.name: f.to_json() for f in features},
            smoothing=self.get_params(),
            source=source.description,
            n_rows=sum(c["n"] for c in classes),
            n_null_target=0,
            classes=[c["value"] for c in classes],
            details={**details, "tables": tables.roles},
            locations={role: tables.named(role) for role in tables.roles},
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
        """Whether the model's parameter tables have checksums to verify (catalog format 2);
        models stored by earlier versions score unverified. (The checksums are compared under
        the engine version that took them, see integrity.py.)"""
        return "checksums" in self.record.details

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
        try:
            if record.locations is None:
                integrity.verify(
                    warehouse, record.name, record.model_id, record.details.get("checksums"),
                    {part: record.table(part) for part in record.parts},
                )  # fmt: skip
            yield record
        except SourceError as error:
            if record.locations is None:
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
                    ) from error
            raise

    # -- fit --------------------------------------------------------------------------------
    def fit(
        self,
        con: Connectable,
        source: SourceLike,
        target: str,
        *,
        features: Sequence[str] | None = None,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        keys: Iterable[str] | None = None,
        name: str | None = None,
        details: dict[str, Any] | None = None,
        allow_high_cardinality: bool = False,
        progress: ProgressCallback | None = None,
    ) -> Classifier:
        """Learn the model from ``source`` inside the warehouse and store it in the catalog.

        Args:
            con: a DuckDB connection, a database path, or a Warehouse.
            source: table/view name, Arrow table or reader, or a Parquet/CSV path.
            target: the class column. Rows where it is NULL are left out (counted in
                ``n_null_target_``).
            features: feature columns; None means every column but the target and ``keys``.
            categorical, numeric: per-column overrides of the type rule (stats/features.py)
                and of the integer rule (stats/integer_rule.py); default: the model's own
                (given to its constructor).
            keys: identifier columns never used as features.
            name: the model's name in the catalog; default ``<kind>_<target>``. A model of the
                same name is replaced atomically.
            details: extra JSON-able facts stored in the catalog row's details (e.g. the
                model-selection comparison that chose these settings).
            allow_high_cardinality: learn categorical attributes that look like identifiers or
                have more than ``validation.MAX_CATEGORIES`` distinct values instead of
                refusing them (see validation.py; a warning is still given).
            progress: called with a :class:`warehouse_ml.progress.Progress` (operation
                ``"fit"``) before each statement; it may raise to cancel the fit, which then
                leaves the catalog as it was.

        Returns:
            self, fitted.

        Raises:
            SourceError, ColumnError, DataError, HighCardinalityError: bad input (see
            docs/RELIABILITY.md); the catalog and any old model of that name are unchanged.
        """
        name = catalog.validate_name(name if name is not None else f"{self.kind}_{target}")
        with session(con, "fit", progress) as warehouse, open_source(warehouse, source) as src:
            chosen = choose_features(
                warehouse, src, target, features, keys=keys,
                **self.column_kinds(categorical, numeric),
            )  # checks the target too  # fmt: skip
            target_type = src.field(target).type
            classes, n_null = self._classes(warehouse, src, target)
            catalog.ensure(warehouse)
            model_id = catalog.new_model_id()
            with Staging(
                warehouse, owner_kind="model", owner=name, created_by="fit", version=model_id,
                lifetime=ownership.MODEL,
            ) as tables:  # fmt: skip
                check = validation.CardinalityCheck(
                    src.description, chosen, sum(c["n"] for c in classes),
                    allow_high_cardinality=allow_high_cardinality,
                )  # fmt: skip
                learned = self._learn(warehouse, src, target, chosen, classes, tables, check)
                validation.check_learned(warehouse, src.description, tables, classes, check)
                record = ModelRecord(
                    name=name,
                    model_id=model_id,
                    kind=self.kind,
                    target=target,
                    target_type=str(target_type),
                    features=[f.name for f in chosen],
                    feature_types={f.name: f.to_json() for f in chosen},
                    smoothing=self.get_params(),
                    source=src.description,
                    n_rows=sum(c["n"] for c in classes),
                    n_null_target=n_null,
                    classes=[c["value"] for c in classes],
                    details={
                        **(details or {}),
                        **learned,
                        "tables": tables.roles,
                        "checksums": integrity.checksums(
                            warehouse, {role: tables.named(role) for role in tables.roles}
                        ),
                    },
                    created_at=ownership.now(),
                    library_version=VERSION,
                )
                catalog.publish(
                    warehouse, record, lambda r, views: self._rebuild_views(warehouse, r, views)
                )
        integrity.mark_verified(record.model_id)
        self.record_ = record
        return self

    def _classes(
        self, warehouse: Warehouse, source: Source, target: str
    ) -> tuple[list[dict[str, Any]], int]:
        rows = warehouse.fetch("select_classes", source=source.relation, target=target).to_pylist()
        n_null = sum(r["n"] for r in rows if r["class_value"] is None)
        present = sorted(
            (r for r in rows if r["class_value"] is not None), key=lambda r: r["class_value"]
        )
        if not rows or sum(r["n"] for r in rows) == 0:
            raise DataError(
                f"source {source.description} has no rows; expected rows with at least two "
                f"classes in target column {target!r}"
            )
        if not present:
            raise DataError(
                f"target column {target!r} of {source.description} is NULL in all "
                f"{n_null} rows; expected at least two classes"
            )
        if len(present) < 2:
            raise DataError(
                f"target column {target!r} of {source.description} has a single class "
                f"{present[0]['class_value']!r}; expected at least two classes"
            )
        if len(present) > MAX_CLASSES:
            raise DataError(
                f"target column {target!r} of {source.description} has {len(present)} "
                f"classes; expected at most {MAX_CLASSES} (each class is a column of the "
                "scoring SQL): group rare classes in a view, or choose another target"
            )
        nul = [r["class_label"] for r in present if "\x00" in r["class_label"]]
        if nul:
            raise DataError(
                f"target column {target!r} of {source.description} has the class {nul[0]!r}, "
                "which contains a NUL character; expected labels without one (each class names "
                "a probability column p_<label>, and SQL engines end a name at NUL)"
            )
        classes = [
            {
                "class_index": i,
                "class_label": r["class_label"],
                "value": _python_label(r["class_value"]),
                "n": r["n"],
            }
            for i, r in enumerate(present)
        ]
        return classes, n_null

    def __repr__(self) -> str:
        state = f"name={self.record_.name!r}" if self.record_ is not None else "unfitted"
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params}) [{state}]"
