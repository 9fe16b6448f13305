"""Incremental updates: a fitted model plus a batch of new rows, exactly as a fit on both.

Naive Bayes and TAN parameters are functions of counts, so an update adds a batch's counts to
the ones the model stores instead of reading its training data again
(:meth:`Updater.update`): the batch is counted as a fit counts its source (the model's
features, with the kinds and, for TAN, the bins of the first fit), staged next to the stored
counts (models/members.py's ``StoredCounts``, partition 1), and the learner's own statements
sum them (categorical and pair counts) or pool them exactly (Gaussian moments, Chan et al.)
into a new version of every parameter table, through the fit's own path: TAN's CMI is
recomputed from the summed pair counts and its tree chosen again. The counts equal those of a
fit on the union of the training rows and every batch (bit for bit; Gaussian means and
variances to the last bits of the pooling), so the parameters and probabilities do too.

* New classes and new categorical values of a batch are counted like any other (a new class
  gets its place in the ascending order of ``classes_``; its probability column gets a name no
  earlier column has and comes after the earlier columns, models/scoring/names.py). A batch whose
  new classes a registered view's decision rule does not name is refused before anything changes
  (``ViewKeeper._check_views_keep``, models/scoring/views.py).
* TAN's numeric attributes keep the bins of the first fit; a batch's values above the top edge
  (the largest training value of the first fit) fall in the top bin and are counted in the
  batch's record (``above_bins``); the bins store no lower edge, so values below the smallest
  training value fall in the first bin uncounted.
* The new version is published as a fit publishes (write fresh tables, then swap the catalog
  row and rebuild the model's views in one transaction), so it is atomic on every engine,
  Spark included: an update that fails or is cancelled leaves the previous version as it was.
  It is refused (ConcurrentFitError) if the model changed since the update read it.
* Each update records its batch (id, source, rows, time) in the model's state
  (models/state.py's ``batches``, :attr:`Updater.batches_`); a batch id already applied is refused
  (BatchAppliedError) and changes nothing, so a retried job cannot count a batch twice.
* A batch's target and features are of the model's types, or of types whose values are
  counted alike (:func:`check_batch_types`: int32 codes for int64, never a boolean for an
  integer or a timestamp for a date), and its numeric values finite on labelled rows, as a fit
  requires; both are checked before anything is counted (ColumnError, DataError), and a
  refused batch leaves its id unused.
* A weighted model (stats/weights.py) counts a batch with its fit's sample-weight column and
  class weights. Refused: "balanced" class weights (they follow the class counts of all rows)
  and weighted Gaussian attributes (their floor is the unweighted variance of all rows, which
  the model does not keep).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, SourceLike, open_source
from warehouse_ml.errors import (
    BatchAppliedError,
    ColumnError,
    ConcurrentFitError,
    DataError,
    IncompatibleModelError,
    ParameterError,
    SourceError,
)
from warehouse_ml.models import capabilities
from warehouse_ml.models.capabilities import CountUpdates
from warehouse_ml.models.members import StoredCounts, Update
from warehouse_ml.models.scoring import names
from warehouse_ml.models.state import Batch, read_common_state
from warehouse_ml.models.training import (
    ClassCount,
    Training,
    check_class_number,
    labelled_classes,
    python_label,
    total_rows,
)
from warehouse_ml.progress import ProgressCallback
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats import validation
from warehouse_ml.stats.features import CATEGORICAL, NUMERIC, Feature, counted_alike
from warehouse_ml.stats.weights import BALANCED, Weighting, check_class_totals
from warehouse_ml.store import catalog, integrity, ownership
from warehouse_ml.store.ownership import Staging
from warehouse_ml.store.record import PARTITIONED_FORMAT, ModelRecord


def merged_classes(
    stored: Sequence[ClassCount], batch: Sequence[ClassCount], weighted: bool
) -> list[ClassCount]:
    """The classes of the model and the batch, in ascending order of their values, each with
    its stored count plus the batch's (a new class: the batch's alone); a ``weighted`` model's
    counts are weights, its rows counted apart."""
    counts = {c.value: (c.n, c.n_rows) for c in stored}
    labels = {c.value: c.label for c in stored}
    for c in batch:
        n, rows = counts.get(c.value, (0, 0))
        counts[c.value] = (n + c.n, rows + c.n_rows)
        labels.setdefault(c.value, c.label)
    try:
        ordered = sorted(counts)
    except TypeError:
        raise DataError(
            f"the batch's classes {[c.value for c in batch]} cannot be ordered with the "
            f"model's {[c.value for c in stored]}; expected a target of the type the model "
            "was fitted on"
        ) from None
    return [
        ClassCount(i, labels[v], v, counts[v][0], counts[v][1] if weighted else None)
        for i, v in enumerate(ordered)
    ]


def _stored_classes(warehouse: Warehouse, record: ModelRecord) -> list[ClassCount]:
    """The model's classes with their counts (the classes table, partition 0) and training
    rows (the catalog's class_rows)."""
    rows = catalog.read_part(warehouse, record, "classes").to_pylist()
    by_index = {r["class_index"]: r["n"] for r in rows if r["wml_part"] == 0}
    class_rows = record.state.class_rows or [by_index[i] for i in by_index]
    return [
        ClassCount(i, str(v), python_label(v), by_index[i], int(class_rows[i]))
        for i, v in enumerate(record.classes)
    ]


def check_batch_types(record: ModelRecord, source: Source) -> None:
    """Refuse (ColumnError naming the column and both types) a batch whose target or a feature
    is of a type whose values the model did not count as they are
    (stats/features.py's ``counted_alike``): a boolean for an integer target, a timestamp for
    a date, uint64 codes for int64 ones; checked before anything is counted."""
    columns = [(record.target, record.target_type, CATEGORICAL, "target")]
    columns += [
        (n, record.feature_types[n]["sql_type"], record.feature_types[n]["kind"], "feature")
        for n in record.features
    ]
    for name, fitted, kind, role in columns:
        found = source.field(name).type
        if not counted_alike(fitted, kind, found):
            raise ColumnError(
                f"{role} column {name!r} of {source.description} has type {found}; model "
                f"{record.name!r} was fitted on type {fitted}, and an update adds a batch's "
                f"values to the counts of the fitted ones: expected type {fitted} (CAST the "
                "column to it in a view)"
            )


def _batch_weighting(record: ModelRecord, source: Source) -> Weighting | None:
    """The weighting a batch of ``record``'s model is counted with: its fit's sample-weight
    column and class weights. Refused (IncompatibleModelError) where a weighted update could
    not equal a weighted fit on all rows: "balanced" class weights (they follow the class
    counts of all rows) and Gaussian attributes (their variance floor is the unweighted
    variance of all rows, which the model does not store)."""
    stored = record.state.weighting
    if stored is None:
        return None
    if record.smoothing.get("class_weight") == BALANCED or "gaussian" in record.parts:
        why = (
            "its 'balanced' class weights follow the class counts of all rows"
            if record.smoothing.get("class_weight") == BALANCED
            else "its Gaussian variance floor is the unweighted variance of all rows"
        )
        raise IncompatibleModelError(
            f"model {record.name!r} is weighted and {why}, which an update cannot add to: fit "
            "it again on all rows"
        )
    return stored.counted(names.fresh("wml_weight", source.columns))


def above_bins(
    warehouse: Warehouse, source: Source, edges: Mapping[str, Sequence[float]]
) -> dict[str, int]:
    """Per binned attribute, the source's values above its top edge (one scan)."""
    counted = {a: e for a, e in edges.items() if e}
    if not counted:
        return {}
    items = [
        alias(
            exp.Sum(
                this=exp.case()
                .when(exp.GT(this=column(a, "src"), expression=literal(float(e[-1]))), literal(1))
                .else_(literal(0))
            ),
            f"wml_above_{i}",
        )
        for i, (a, e) in enumerate(counted.items())
    ]
    row = warehouse.fetch_tree(
        exp.select(*items).from_(source.relation.copy().as_("src"))
    ).to_pylist()[0]
    return {a: int(row[f"wml_above_{i}"] or 0) for i, a in enumerate(counted)}


def _stores_update_counts(warehouse: Warehouse, record: ModelRecord) -> bool:
    """Whether ``record``'s tables hold what an update adds to: the population variances of
    its Gaussian attributes (stored since this version)."""
    if "gaussian" not in record.parts:
        return True
    return "population_variance" in warehouse.schema_of(record.table("gaussian")).names


@contextlib.contextmanager
def _refused_if_replaced(warehouse: Warehouse, record: ModelRecord) -> Iterator[None]:
    """An update reads ``record``'s tables while another connection may publish a version of
    the model and drop them: a SourceError that finds the catalog holding another version is
    that race, a ConcurrentFitError (as :func:`catalog.publish` raises when the row changed
    before the swap); so is a write conflict (:meth:`Warehouse.write_conflict`: the engine
    rolled the read back for the other connection's writes, PostgreSQL's deadlock between the
    read and the drop among them), whatever the catalog holds by then, since the other
    publication may not have committed yet (and the catalog is not read again after the
    engine's error). Any other error passes unchanged. Inside the model's ``_current``, which
    refuses a version replaced before the update began (StaleModelError)."""
    try:
        yield
    except Exception as error:
        if warehouse.write_conflict(error):
            cause = "the other connection's writes conflicted with the read, rolled back"
        elif isinstance(error, SourceError):
            now = catalog.current_version(warehouse, record.name)
            if now == record.model_id:
                raise
            cause = f"the catalog now holds version {now!r}"
        else:
            raise
        raise ConcurrentFitError(
            f"model {record.name!r} was changed by another connection while this update was "
            f"reading its counts (it started from version {record.model_id!r}; {cause}); "
            "nothing was published: load the model and apply the batch again"
        ) from error


class Updater:
    """Incremental updates of a fitted classifier of a kind that declares
    :class:`~warehouse_ml.models.capabilities.CountUpdates` (module docstring; another kind's
    ``update`` is a NotSupportedError); relies on the classifier's ``_current``,
    ``learn_tables``, ``record_of``, ``_check_views_keep`` and ``_rebuild_views``."""

    @property
    def batches_(self) -> list[dict[str, Any]]:
        """The batches applied to the model since its fit, oldest first: batch_id, source,
        n_rows (labelled rows counted), n_null_target, above_bins (TAN: per numeric
        attribute, values above its top bin edge), applied_at (ISO timestamp, UTC)."""
        return [batch.to_json() for batch in self.record.state.batches]

    def update(
        self,
        con: Connectable,
        batch: SourceLike,
        *,
        batch_id: str,
        progress: ProgressCallback | None = None,
    ) -> Updater:
        """Add the rows of ``batch`` to the model: its counts are added to the stored ones and
        a new version of the model is published, equal to a fit on the training rows and every
        batch applied (module docstring). The model's registered views are rebuilt with it.

        Args:
            con: a DuckDB connection, a database path, or a Warehouse.
            batch: table/view name, Arrow table or reader, or a Parquet/CSV path with the
                model's features (of the types it was fitted on) and its target.
            batch_id: a non-empty id for the batch, recorded in the catalog; an id already
                applied is refused (BatchAppliedError), so a retried job changes nothing.
            progress: as for ``fit`` (operation ``"update"``); raising from it cancels the
                update, which then leaves the model as it was.

        Returns:
            self, now describing the new version.
        """
        capabilities.require(self, CountUpdates, "update", "fit the model again on all rows")
        if not isinstance(batch_id, str) or not batch_id.strip():
            raise ParameterError(f"batch_id must be a non-empty string, got {batch_id!r}")
        with session(con, "update", progress) as warehouse, open_source(warehouse, batch) as src:
            warehouse.require_writing(
                f"the new version of model {self.record.name!r} (its parameter tables and "
                "catalog row, in schema wml)"
            )
            with (
                self._current(warehouse) as record,
                _refused_if_replaced(warehouse, record),
            ):
                self._check_updatable(warehouse, record, batch_id)
                check_batch_types(record, src)
                numeric = [n for n in record.features if record.feature_types[n]["kind"] == NUMERIC]
                validation.check_finite(warehouse, src, record.target, numeric)
                new = self._apply(warehouse, src, record, batch_id)
        integrity.mark_verified(new.model_id)
        self.record_ = new
        return self

    def _apply(
        self, warehouse: Warehouse, src: Source, record: ModelRecord, batch_id: str
    ) -> ModelRecord:
        """Count ``src`` (checked by :meth:`update`) onto ``record``'s stored counts and
        publish the new version; returns its record."""
        weighting = _batch_weighting(record, src)
        counted = src
        if weighting is not None:
            weighting.check(warehouse, src, record.target)
            counted = weighting.source(src, record.target)
        weight = None if weighting is None else weighting.column
        batch_classes, n_null = labelled_classes(warehouse, counted, record.target, weight)
        stored = _stored_classes(warehouse, record)
        classes = merged_classes(stored, batch_classes, weight is not None)
        check_class_number(classes, src.description, record.target)
        if weighting is not None:
            check_class_totals(classes, src.description, record.target, weighting)
        self._check_views_keep(warehouse, record, [c.value for c in classes])
        features = [
            Feature(n, record.feature_types[n]["kind"], record.feature_types[n]["sql_type"])
            for n in record.features
        ]
        with Staging(
            warehouse, owner_kind="model", owner=record.name, created_by="update",
            version=catalog.new_model_id(), lifetime=ownership.MODEL,
        ) as tables:  # fmt: skip
            check = validation.CardinalityCheck(
                src.description, features, total_rows(classes), allow_high_cardinality=True
            )
            training = Training(
                counted, record.target, features, [classes], members=Update(StoredCounts(record)),
                weight=weight,
            )  # fmt: skip
            learned = self.learn_tables(warehouse, training, tables, check)
            validation.check_learned(warehouse, src.description, tables, classes)
            applied = Batch(
                batch_id, src.description, total_rows(batch_classes), n_null,
                above_bins(warehouse, src, learned.binned_edges()), ownership.now().isoformat(),
            )  # fmt: skip
            new = self.record_of(
                warehouse, tables, training, learned, name=record.name,
                n_null_target=record.n_null_target + n_null, previous=record,
                noted=dataclasses.replace(record.state, batches=(*record.state.batches, applied)),
            )  # fmt: skip
            new = dataclasses.replace(new, source=record.source, target_type=record.target_type)
            catalog.publish(
                warehouse, new, read_common_state,
                lambda r, views: self._rebuild_views(warehouse, r, views),
                replacing=record.model_id,
            )  # fmt: skip
        return new

    @staticmethod
    def _check_updatable(warehouse: Warehouse, record: ModelRecord, batch_id: str) -> None:
        """Refuse a batch id already applied, and a model whose stored counts an update
        cannot read (a cross-validation fold's, or one stored before population variances)."""
        if record.locations is not None:
            raise IncompatibleModelError(
                "only a fitted model of the catalog can be updated, not a cross-validation's"
            )
        if any(b.batch_id == batch_id for b in record.state.batches):
            raise BatchAppliedError(
                f"batch {batch_id!r} has already been applied to model {record.name!r}; "
                "nothing was changed (each batch is counted once)"
            )
        if record.format_version < PARTITIONED_FORMAT or not _stores_update_counts(
            warehouse, record
        ):
            raise IncompatibleModelError(
                f"model {record.name!r} was stored by an earlier version of warehouse-ml, "
                "whose tables lack the counts an update adds to: fit it again once, then "
                "update it"
            )
