"""A model's registered views: prediction views created over a durable source, the check that
a new version still means what each view shows, and the rebuild of every view over each new
version inside the publishing transaction (:class:`ViewKeeper`, a base of
:class:`warehouse_ml.models.base.Classifier`).

Explanation and drift views are created through the same path (``_create_model_view``, from
models/inspection/explaining.py and models/living/monitoring.py); a view's registry row keeps its
source and options, from which :meth:`ViewKeeper._view_query_from` builds it again for any version.
Engines differ in how a view others read can be redefined (:func:`_redefine_view`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from warehouse_ml.engines import Connectable, session
from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source, open_source, source_from_spec
from warehouse_ml.errors import (
    DependentObjectError,
    NameConflictError,
    ParameterError,
    ViewRebuildError,
    WarehouseMLError,
)
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.scoring.decision import Decision
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import TableName, column
from warehouse_ml.stats.features import column_names
from warehouse_ml.store import ownership
from warehouse_ml.store.catalog import (
    DRIFT_VIEW,
    EXPLANATION_VIEW,
    PREDICTION_VIEW,
    ModelRecord,
    registered_views,
)


class ViewKeeper:
    """The views half of :class:`~warehouse_ml.models.base.Classifier`; it relies on the
    classifier's ``classes_``, ``_current``, ``from_record``, ``view_query``,
    ``stored_explanation_query`` and ``stored_drift_query``."""

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
        column ``p_<label>`` per class and ``prediction``. It is registered as the model's, so
        a re-fit rebuilds it in the same transaction; its name must be new or a view
        warehouse-ml made (a user's table or view of that name, or the source itself, is a
        NameConflictError before anything runs). Returns the view's schema-qualified name.
        """
        decision = Decision.make(self.classes_, threshold=threshold, positive=positive, loss=loss)
        options = {
            "keys": None if keys is None else column_names(keys, "keys"),
            "decision": decision.to_json(),
        }
        return self._create_model_view(
            con, view, source, role=PREDICTION_VIEW, created_by="create_view",
            what="a prediction view", options=options,
        )  # fmt: skip

    def _create_model_view(
        self,
        con: Connectable,
        view: str | Sequence[str],
        source: str | Sequence[str],
        *,
        role: str,
        created_by: str,
        what: str,
        options: dict[str, Any],
    ) -> TableName:
        """Create (or replace) a view of the model with registry role ``role`` over a durable
        ``source``: its query is :meth:`_view_query_from` of ``options`` (JSON) for the current
        model version, the same a re-fit rebuilds it from. The name is claimed
        (ownership.claim) before anything is created."""
        with session(con) as warehouse, open_source(warehouse, source) as src:
            spec = src.durable_spec(what)
            unreadable = warehouse.views_read_library()
            if unreadable is not None:
                raise NameConflictError(f"cannot create view {str(view)!r}: {unreadable}")
            with self._current(warehouse) as record:
                query = self._view_query_from(warehouse, record, src, role, options)
            claimed = ownership.claim(warehouse, TableName.parse(view), "view", sources=src.objects)
            return ownership.create(
                warehouse, claimed, query, owner_kind="model", owner=record.name, role=role,
                created_by=created_by, lifetime=ownership.MODEL,
                details={"source": spec, "options": options},
            )  # fmt: skip

    def _view_query_from(
        self,
        warehouse: Warehouse,
        record: ModelRecord,
        source: Source,
        role: str,
        options: dict[str, Any],
    ) -> exp.Query:
        """The query of a registered view of role ``role`` created with ``options``, over
        ``record``'s model."""
        model = type(self).from_record(record)
        if role == EXPLANATION_VIEW:
            return model.stored_explanation_query(warehouse, record, source, options)
        if role == DRIFT_VIEW:
            return model.stored_drift_query(warehouse, record, source, options)
        decision = Decision.from_json(options["decision"], record.classes)
        return model.view_query(
            ScoringContext(warehouse), record, source, keys=options["keys"], decision=decision
        )

    @staticmethod
    def _check_views_keep(
        warehouse: Warehouse, previous: ModelRecord | None, labels: Sequence[Any]
    ) -> None:
        """Refuse, before anything changes, a new version of ``previous``'s model whose classes
        are ``labels`` when a registered prediction view of the model could not show what it
        shows: a class whose probability column it has is gone, or its decision rule (a
        threshold or a loss matrix, which name classes) was made for another set of classes, as
        ``predict`` with those options would refuse (ViewRebuildError naming the view and the
        way out). An argmax view takes new classes as new columns after its own."""
        if previous is None:
            return
        before = {str(c): c for c in previous.classes}
        after = {str(label): label for label in labels}
        if set(before) == set(after):
            return
        gone = [c for text, c in before.items() if text not in after]
        added = [label for text, label in after.items() if text not in before]
        for row in registered_views(warehouse, previous.name):
            if row.role != PREDICTION_VIEW:
                continue
            try:
                rule = Decision.from_json(row.details["options"]["decision"], previous.classes)
            except ParameterError as error:
                raise ViewRebuildError(
                    f"view {row.name} of model {previous.name!r}: {error}. Nothing was changed. "
                    f"Remove it with warehouse_ml.drop_view(con, {str(row.name)!r}) (or "
                    f"warehouse_ml.rebuild_views(con, {previous.name!r}, on_broken='drop')), "
                    "then fit or update again"
                ) from error
            if not gone and not rule.names_classes:
                continue
            what = (
                f"predicts with a decision rule ({rule.describe()}) made for the classes "
                f"{list(rule.labels)}, which does not apply to other classes"
                if rule.names_classes
                else f"shows the probability columns of the classes {gone}"
            )
            raise ViewRebuildError(
                f"view {row.name} of model {previous.name!r} {what}; the new version would "
                f"have the classes {list(labels)} (added {added}, gone {gone}). Nothing was "
                "changed (an update's batch was not applied). Remove the view with "
                f"warehouse_ml.drop_view(con, {str(row.name)!r}), then fit or update again "
                "and create the view anew for the new classes"
            )

    def _rebuild_views(
        self, warehouse: Warehouse, record: ModelRecord, views: Sequence[ownership.Owned]
    ) -> None:
        """Rebuild the registered views of the model (``views``: their registry rows) over
        ``record``'s tables (inside the publishing transaction)."""
        for row in views:
            self._rebuild_view(warehouse, record, row)

    def _rebuild_view(
        self, warehouse: Warehouse, record: ModelRecord, row: ownership.Owned
    ) -> None:
        """Replace one registered view by the same view over ``record``'s tables; a source that
        no longer fits is a ViewRebuildError naming the view and the way out."""
        spec = row.details["source"]
        unreadable = warehouse.views_read_library()
        if unreadable is not None:
            raise ViewRebuildError(f"view {row.name} of model {record.name!r}: {unreadable}")
        try:
            with open_source(warehouse, source_from_spec(spec)) as src:
                query = self._view_query_from(
                    warehouse, record, src, row.role, row.details["options"]
                )
        except WarehouseMLError as error:
            raise ViewRebuildError(
                f"view {row.name} of model {record.name!r} cannot be rebuilt over its source "
                f"{source_from_spec(spec)!s}: {error}. Nothing was changed. Recreate the view "
                "over a source with the model's columns, or remove it with "
                f"warehouse_ml.drop_view(con, {str(row.name)!r}) (or warehouse_ml.rebuild_views"
                f"(con, {record.name!r}, on_broken='drop')), then fit again"
            ) from error
        _redefine_view(warehouse, record, row.name, query)


def _redefine_view(
    warehouse: Warehouse, record: ModelRecord, view: TableName, query: exp.Query
) -> None:
    """Make ``query`` the definition of the existing ``view``, its columns in the view's order
    and the new ones after them (a class an update adds: its column follows ``prediction``).
    Without dependent objects the view is dropped and created again; with some (PostgreSQL: a
    user's view reads it) it is redefined in place with CREATE OR REPLACE VIEW, which they
    keep reading, and a column it would lose or retype is a DependentObjectError naming them,
    before the view changes."""
    if warehouse.resolve_existing(view) is None:  # dropped by hand since: created again
        warehouse.run_tree(templates.create_view(view, query))
        return
    before = warehouse.schema_of(view)
    after = warehouse.fetch("select_no_rows", source=query.subquery()).schema
    order = [n for n in before.names if n in after.names]
    order += [n for n in after.names if n not in order]
    if order != after.names:
        query = exp.select(*[column(n) for n in order]).from_(query.subquery("wml_view"))
    dependents = warehouse.dependent_objects(view)
    if not dependents:
        warehouse.run("drop_view", view=view)
        warehouse.run_tree(templates.create_view(view, query))
        return
    changed = [
        f"{f.name} ({f.type} -> {after.field(f.name).type if f.name in after.names else 'gone'})"
        for f in before
        if f.name not in after.names or after.field(f.name).type != f.type
    ]
    if changed:
        raise DependentObjectError(
            f"view {view} of model {record.name!r} is read by {[str(d) for d in dependents]}, "
            f"which warehouse-ml does not own, and its new version would change the columns "
            f"{changed}; the engine keeps a view others read only if its columns stay (new "
            "ones may follow). Nothing was changed: drop or redefine those objects first, or "
            f"remove the view with warehouse_ml.drop_view(con, {str(view)!r}) once they are gone"
        )
    warehouse.run_tree(templates.replace_view(view, query))
