"""What every classifier shares: fitting into the catalog, scoring, views, loading.

A subclass (Naive Bayes, TAN) implements two methods: :meth:`Classifier._learn`, which writes
its parameter tables from a source, and :meth:`Classifier._terms`, which says how those tables
score a row. Everything else (the fit protocol, predictions, views, SQL export) is here, so all
models keep one contract.
"""

from __future__ import annotations

import abc
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, ClassVar

import pyarrow as pa
from sqlglot import exp

import warehouse_ml
from warehouse_ml import catalog, templates, validation
from warehouse_ml.catalog import ModelRecord
from warehouse_ml.errors import ColumnError, DataError, NotFittedError, ParameterError
from warehouse_ml.features import Feature, select_features
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.scoring import Decision, Term, score_query
from warehouse_ml.sources import Source, SourceLike, is_path, open_source
from warehouse_ml.templates import TableName
from warehouse_ml.warehouse import Connectable, Warehouse, connect

PREDICTION = "prediction"
PROBABILITY_PREFIX = "p_"


def probability_columns(labels: Sequence[Any]) -> list[str]:
    """Column names of the class probabilities in prediction views and tables: ``p_<label>``
    per class, in class order. Engines may compare names without case (DuckDB, Spark), so a
    name equal to an earlier one but for case gets the class's 0-based index appended
    (classes 'NULL' and 'null' give ``p_NULL`` and ``p_null_1``)."""
    names: list[str] = []
    taken: set[str] = set()
    for index, label in enumerate(labels):
        name = f"{PROBABILITY_PREFIX}{label}"
        while name.casefold() in taken:
            name = f"{name}_{index}"
        names.append(name)
        taken.add(name.casefold())
    return names


def _python_label(value: Any) -> Any:
    """A class label as stored in the catalog (JSON): str, int, bool, or text for other types."""
    if isinstance(value, (str, bool, int)):
        return value
    return str(value)


class Classifier(abc.ABC):
    """Base of the warehouse classifiers. Fitted attributes end in ``_``."""

    kind: ClassVar[str]
    record_: ModelRecord | None

    def __init__(self) -> None:
        self.record_ = None

    # -- what a model kind implements ----------------------------------------------------
    @abc.abstractmethod
    def _smoothing(self) -> dict[str, Any]:
        """The constructor's keyword arguments, stored in the catalog's smoothing column."""

    @abc.abstractmethod
    def _learn(
        self,
        warehouse: Warehouse,
        source: Source,
        target: str,
        features: list[Feature],
        classes: list[dict[str, Any]],
        model_id: str,
        parts: list[str],
        check: validation.CardinalityCheck,
    ) -> dict[str, Any]:
        """Write the parameter tables of a new model under ``model_id``.

        ``classes`` holds one dict per class (class_index, class_label, value, n) in
        ``classes_`` order. Each table part created must be appended to ``parts`` *before* it is
        created, so that a failure drops it. ``check`` is the high-cardinality check, to make
        as soon as the attributes' distinct values are known when statements heavier than the
        counts follow (TAN's pair counts); else :func:`validation.check_learned` makes it after
        learning. Returns kind-specific details for the catalog.
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
        model_id: str,
        created: list[TableName],
        check: validation.CardinalityCheck,
    ) -> dict[str, Any]:
        """Learn every fold's model at once (cross-validation, when
        :meth:`_partitioned_scoring`) from the fold assignment ``split``: fold f trains on the
        rows whose ``fold`` column differs from f, with class counts ``fold_classes[f]``. The
        scoring tables are written under ``model_id``, each holding all folds (column
        wml_part = f); every table created is appended to ``created`` before it is created.
        ``check``: the high-cardinality check of the whole source, as for :meth:`_learn`.
        Returns the catalog details, with ``tables``: the parts written under ``model_id``."""
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
        model_ids: list[str],
        created: list[TableName],
        check: validation.CardinalityCheck,
    ) -> list[dict[str, Any]]:
        """Learn one model per fold (for cross-validation) from the fold assignment ``split``.

        Fold f trains on the rows whose ``fold`` column differs from f, with class counts
        ``fold_classes[f]``, under ``model_ids[f]``; every table created is appended to
        ``created``. Returns each fold's catalog details. It fits each fold from its rows (one
        scan per fold); cross-validation uses it when :meth:`_partitioned_scoring` says no (TAN
        with numeric attributes, whose bins differ per fold), the folds then being scored one
        statement each. ``check`` is handed to each fold's :meth:`_learn` (it is made once).
        """
        details = []
        for index, (classes, model_id) in enumerate(zip(fold_classes, model_ids, strict=True)):
            rows = templates.build(
                "select_rows_outside_fold", split=split.relation, fold=fold, index=index
            )
            training = Source(rows.subquery("wml_training"), split.schema, split.description, True)
            parts: list[str] = []
            try:
                detail = self._learn(
                    warehouse, training, target, features, classes, model_id, parts, check
                )
            finally:
                created.extend(catalog.parameter_table(model_id, p) for p in parts)
            details.append({**detail, "tables": parts})
        return details

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

    def parameters(self, con: Connectable) -> dict[str, pa.Table]:
        """Every parameter table of the fitted model, by part name (e.g. ``classes``,
        ``categorical``), rows sorted by all columns. Columns are documented by each model."""
        warehouse = connect(con)
        return {
            part: catalog.read_part(warehouse, self.record, part)
            for part in self.record.details.get("tables", [])
        }

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
            categorical, numeric: per-column overrides of the type rule (see features.py).
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
        warehouse = connect(con)
        name = catalog.validate_name(name if name is not None else f"{self.kind}_{target}")
        with warehouse.operation("fit", progress), open_source(warehouse, source) as src:
            chosen = select_features(
                src, target, features, categorical=categorical, numeric=numeric, keys=keys
            )  # checks the target too
            target_type = src.field(target).type
            classes, n_null = self._classes(warehouse, src, target)
            catalog.ensure(warehouse)
            model_id = catalog.new_model_id()
            parts: list[str] = []
            check = validation.CardinalityCheck(
                src.description, chosen, sum(c["n"] for c in classes),
                allow_high_cardinality=allow_high_cardinality,
            )  # fmt: skip
            with catalog.staging(warehouse, model_id, parts):
                learned = self._learn(
                    warehouse, src, target, chosen, classes, model_id, parts, check
                )
                validation.check_learned(
                    warehouse, src.description, model_id, parts, classes, check
                )
            record = ModelRecord(
                name=name,
                model_id=model_id,
                kind=self.kind,
                target=target,
                target_type=str(target_type),
                features=[f.name for f in chosen],
                feature_types={f.name: f.to_json() for f in chosen},
                smoothing=self._smoothing(),
                source=src.description,
                n_rows=sum(c["n"] for c in classes),
                n_null_target=n_null,
                classes=[c["value"] for c in classes],
                details={**(details or {}), **learned, "tables": list(parts)},
                created_at=catalog.now(),
                library_version=warehouse_ml.__version__,
            )
            catalog.publish(warehouse, record, parts, lambda r: self._rebuild_views(warehouse, r))
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

    # -- scoring ------------------------------------------------------------------------
    def _check_source(self, source: Source) -> None:
        for feature in self.features_:
            if source.schema.get_field_index(feature.name) < 0:
                raise ColumnError(
                    f"source {source.description} has no column {feature.name!r}, a feature of "
                    f"model {self.name_!r}; expected the features {self.feature_names_in_}, "
                    f"found the columns {source.columns}"
                )
            field = source.field(feature.name)
            if str(field.type) != feature.sql_type and not _compatible(feature, field.type):
                raise ColumnError(
                    f"column {feature.name!r} of {source.description} has type {field.type}; "
                    f"model {self.name_!r} was fitted on type {feature.sql_type}"
                )

    def _score(
        self,
        warehouse: Warehouse,
        source: Source,
        *,
        passthrough: Sequence[str] = (),
        probability_names: Sequence[str] | None = None,
        log_probability_names: Sequence[str] | None = None,
        prediction_name: str | None = None,
        decision: Decision | None = None,
        keep_order: bool,
    ) -> exp.Query:
        self._check_source(source)
        outputs = [*(probability_names or []), *(log_probability_names or [])]
        if prediction_name:
            outputs.append(prediction_name)
        clash = sorted(set(passthrough) & set(outputs))
        if clash:
            raise ColumnError(
                f"columns {clash} of {source.description} collide with the output columns of "
                f"the scoring query ({outputs}); choose key columns with keys=[...]"
            )
        return score_query(
            source.relation,
            self._terms(warehouse, self.record, source),
            self.classes_,
            passthrough=passthrough,
            probability_names=probability_names,
            log_probability_names=log_probability_names,
            prediction_name=prediction_name,
            decision=decision,
            keep_order=keep_order,
        )

    def _class_names(self) -> list[str]:
        return [str(c) for c in self.classes_]

    def predict_proba(self, con: Connectable, source: SourceLike) -> pa.Table:
        """Class probabilities: one float64 column per class, in ``classes_`` order, named
        ``str(label)``, one row per source row, in source order."""
        warehouse = connect(con)
        with open_source(warehouse, source) as src:
            query = self._score(
                warehouse, src, probability_names=self._class_names(), keep_order=True
            )
            return warehouse.fetch_tree(query)

    def predict_log_proba(self, con: Connectable, source: SourceLike) -> pa.Table:
        """Natural-log class probabilities, laid out as :meth:`predict_proba`."""
        warehouse = connect(con)
        with open_source(warehouse, source) as src:
            query = self._score(
                warehouse, src, log_probability_names=self._class_names(), keep_order=True
            )
            return warehouse.fetch_tree(query)

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
        warehouse = connect(con)
        with open_source(warehouse, source) as src:
            query = self._score(
                warehouse,
                src,
                passthrough=list(keys),
                prediction_name=PREDICTION,
                decision=decision,
                keep_order=True,
            )
            return warehouse.fetch_tree(query)

    def view_query(
        self,
        warehouse: Warehouse,
        source: Source,
        *,
        keys: Sequence[str] | None = None,
        decision: Decision | None = None,
        keep_order: bool = False,
    ) -> exp.Query:
        """The query behind a prediction view: key columns (default: every source column),
        ``p_<label>`` per class (DOUBLE), ``prediction``."""
        return self._score(
            warehouse,
            source,
            passthrough=list(source.columns if keys is None else keys),
            probability_names=probability_columns(self._class_names()),
            prediction_name=PREDICTION,
            decision=decision,
            keep_order=keep_order,
        )

    def score(
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
        all source columns), ``p_<label>`` per class and ``prediction``."""
        warehouse = connect(con)
        decision = Decision.make(self.classes_, threshold=threshold, positive=positive, loss=loss)
        with open_source(warehouse, source) as src:
            query = self.view_query(warehouse, src, keys=keys, decision=decision, keep_order=True)
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
        """Materialise the predictions of :meth:`score` as a new table (it must not exist).

        ``progress`` is called with a :class:`warehouse_ml.progress.Progress` (operation
        ``"create_table"``) before each statement; it may raise to cancel (no table is left).
        """
        warehouse = connect(con)
        decision = Decision.make(self.classes_, threshold=threshold, positive=positive, loss=loss)
        name = TableName.parse(table)
        with warehouse.operation("create_table", progress), open_source(warehouse, source) as src:
            query = self.view_query(warehouse, src, keys=keys, decision=decision)
            warehouse.run_tree(templates.create_table_as(name, query))
        return name

    def sql(
        self,
        con: Connectable,
        source: SourceLike,
        *,
        keys: Sequence[str] | None = None,
        dialect: str | None = None,
        threshold: float | None = None,
        positive: Any = None,
        loss: Sequence[Sequence[float]] | None = None,
    ) -> str:
        """The SQL text of the prediction query for ``source``, in ``dialect`` (default: the
        connection's own)."""
        warehouse = connect(con)
        decision = Decision.make(self.classes_, threshold=threshold, positive=positive, loss=loss)
        with open_source(warehouse, source) as src:
            query = self.view_query(warehouse, src, keys=keys, decision=decision)
        return templates.generate(query, dialect or warehouse.dialect)

    def create_view(
        self,
        con: Connectable,
        view: str | Sequence[str],
        source: str | Sequence[str],
        *,
        keys: Sequence[str] | None = None,
        threshold: float | None = None,
        positive: Any = None,
        loss: Sequence[Sequence[float]] | None = None,
    ) -> TableName:
        """Create (or replace) a plain-SQL prediction view over a table, view or file.

        The view outputs the ``keys`` columns (default: all source columns), one probability
        column ``p_<label>`` per class and ``prediction``. It is registered in the catalog so a
        re-fit of the model rebuilds it in the same transaction.
        """
        warehouse = connect(con)
        decision = Decision.make(self.classes_, threshold=threshold, positive=positive, loss=loss)
        view_name = TableName.parse(view)
        source_spec = _durable_source_spec(source)
        options = {"keys": None if keys is None else list(keys), "decision": decision.to_json()}
        with warehouse.transaction():
            self._write_view(warehouse, self.record, view_name, source_spec, options)
            catalog.register_view(warehouse, view_name, self.name_, source_spec, options)
        return view_name

    def _write_view(
        self,
        warehouse: Warehouse,
        record: ModelRecord,
        view_name: TableName,
        source_spec: dict[str, Any],
        options: dict[str, Any],
    ) -> None:
        model = type(self).from_record(record)
        decision_json = options["decision"]
        decision = Decision(
            threshold=decision_json["threshold"],
            positive=decision_json["positive"],
            loss=None
            if decision_json["loss"] is None
            else tuple(map(tuple, decision_json["loss"])),
        )
        with open_source(warehouse, _source_from_spec(source_spec)) as src:
            query = model.view_query(warehouse, src, keys=options["keys"], decision=decision)
        warehouse.run("drop_view", view=view_name)
        warehouse.run_tree(exp.Create(kind="VIEW", this=view_name.to_table(), expression=query))

    def _rebuild_views(self, warehouse: Warehouse, record: ModelRecord) -> None:
        for row in catalog.registered_views(warehouse, record.name):
            self._write_view(
                warehouse, record, TableName(tuple(row["view_name"])), row["source"], row["options"]
            )

    def __repr__(self) -> str:
        state = f"name={self.record_.name!r}" if self.record_ is not None else "unfitted"
        params = ", ".join(f"{k}={v!r}" for k, v in self._smoothing().items())
        return f"{type(self).__name__}({params}) [{state}]"


def _compatible(feature: Feature, arrow_type: pa.DataType) -> bool:
    """Scoring accepts the fitted type, or another type of the same family (e.g. int32 codes
    for int64, large_string for string)."""
    if pa.types.is_null(arrow_type):  # an all-NULL column (e.g. from Python None values)
        return True
    fitted = feature.sql_type
    families = (
        ("int", "uint"),
        ("string", "large_string", "string_view"),
        ("double", "float", "halffloat", "decimal"),
    )
    now = str(arrow_type)
    return any(
        any(fitted.startswith(p) for p in family) and any(now.startswith(p) for p in family)
        for family in families
    )


def _durable_source_spec(source: Any) -> dict[str, Any]:
    if isinstance(source, (str, os.PathLike)) and is_path(source):
        return {"file": str(Path(source).expanduser().resolve())}
    if isinstance(source, (str, tuple, list, TableName)):
        return {"table": list(TableName.parse(source).parts)}
    raise ParameterError(
        "a view needs a durable source (a table or view name, or a Parquet/CSV path) so that "
        f"SQL clients can query it later; got {type(source).__name__}"
    )


def _source_from_spec(spec: dict[str, Any]) -> Any:
    return spec["file"] if "file" in spec else TableName(tuple(spec["table"]))
