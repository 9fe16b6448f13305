"""What a cross-validation decides before it writes a table: its :class:`Plan`.

The plan holds the features chosen (the integer rule applied once for every fold), the class
counts, the row count, the weighting of a weighted cross-validation and the high-cardinality
check of the source, all read before any table is made; :func:`uses_exact_leave_one_out`
tells whether k = n takes leave-one-out's closed form (loo.py), and the checks of a fold
assignment given for reuse (:func:`reused_key`, :func:`check_reusable`) refuse it before any
work. Cross-validation (crossval.py) and model selection (selection.py) plan their runs here.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.errors import ColumnError, ParameterError
from warehouse_ml.evaluation import splits
from warehouse_ml.models import capabilities
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import ExactLeaveOneOut
from warehouse_ml.models.inspection import relevance
from warehouse_ml.models.scoring import names
from warehouse_ml.models.training import ClassCount, class_counts, labelled_classes, total
from warehouse_ml.stats import keys, weights
from warehouse_ml.stats.integer_rule import as_declared
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store import catalog


@dataclass(frozen=True)
class Plan:
    """What one cross-validation needs besides its folds: an id for its tables, the features
    chosen (and ``selection``: the features / categorical / numeric arguments that choose them
    again with nothing left to decide, stats/integer_rule.as_declared), the class counts, the
    number of source rows (NULL targets included), whether its results are kept and the
    high-cardinality check of the source. With ``features="top:k"``, ``top`` is k and
    ``features`` the candidates each training fold keeps its k best of."""

    cv_id: str
    selection: dict[str, Any]
    features: list
    classes: list[ClassCount]
    n_rows: int
    keep: bool
    check: CardinalityCheck
    top: int | None = None
    weighting: weights.Weighting | None = None
    measure_weight: str | None = None

    @property
    def weight(self) -> str | None:
        """The weight column of a weighted cross-validation's rows (stats/weights.py)."""
        return None if self.weighting is None else self.weighting.column

    @property
    def labels(self) -> tuple[Any, ...]:
        return tuple(c.value for c in self.classes)


def plan_evaluation(
    warehouse: Warehouse,
    src: Source,
    target: str,
    model: Classifier,
    key: str | None,
    selection: dict[str, Any],
    keep: bool,
    allow_high_cardinality: bool,
    sample_weight: str | None = None,
    weighted_measures: bool = False,
) -> Plan:
    """The :class:`Plan` of cross-validating ``model`` on ``src``: its features, classes and
    row count, read before any table is made; with a ``sample_weight`` column or the model's
    ``class_weight``, its weighting (class weights from all the source's rows), and with
    ``weighted_measures`` the sample-weight column the measures count rows as. Weights on a
    kind without a weighted form are refused first (capabilities.require_weights), before the
    source is read."""
    capabilities.require_weights(model, sample_weight, model.class_weight)
    if weighted_measures and sample_weight is None:
        raise ParameterError("weighted_measures=True needs the sample_weight column to weigh by")
    catalog.ensure(warehouse)
    identifiers = [c for c in (key, sample_weight, *model.key_columns()) if c]
    chosen, top = relevance.candidates(
        warehouse, src, target, selection.get("features"), keys=identifiers or None,
        **model.column_kinds(selection.get("categorical"), selection.get("numeric")),
    )  # fmt: skip
    if key is not None:
        keys.check_key_column(
            src, key, "the cross-validation folds", target=target,
            features=[f.name for f in chosen],
        )  # fmt: skip
    classes, n_null = class_counts(warehouse, src, target)
    n_labelled = total(classes)
    check = CardinalityCheck(
        src.description, chosen, n_labelled, allow_high_cardinality=allow_high_cardinality
    )
    weighting = weights.weighting(
        warehouse, src, target, sample_weight, model.class_weight, classes,
        names.fresh("wml_weight", src.columns),
    )  # fmt: skip
    if weighting is not None:
        classes, _ = labelled_classes(
            warehouse, weighting.source(src, target), target, weighting.column
        )
        weights.check_class_totals(classes, src.description, target, weighting)
    cv_id = f"cv{uuid.uuid4().hex[:12]}"
    return Plan(
        cv_id, as_declared(chosen), chosen, classes, n_labelled + n_null, keep, check, top,
        weighting, sample_weight if weighted_measures else None,
    )  # fmt: skip


def uses_exact_leave_one_out(model: Classifier, k: Any, plan: Plan) -> bool:
    """k = n for a model with an exact leave-one-out (loo.py) needs no fold table. Features
    chosen inside each training fold (``top:k``) have none, nor have weighted rows: both are
    refused for k = n."""
    if k != plan.n_rows or not isinstance(model, ExactLeaveOneOut):
        return False
    if plan.weighting is not None:
        raise ParameterError(
            "leave-one-out's exact computation subtracts each row's count of 1, not a weight; "
            f"use fewer folds than the {k} rows to cross-validate a weighted model"
        )
    if plan.top is not None:
        raise ParameterError(
            f"features='top:{plan.top}' chooses the attributes inside each training fold, which "
            f"leave-one-out's exact computation cannot; use fewer folds than the {k} rows"
        )
    return True


def reused_key(src: Source, split: splits.Split, key: str | None) -> str | None:
    """The source's key column for a cross-validation on ``split`` (None when the assignment
    numbered the rows itself); refuses a hold-out split and a key other than the split's."""
    if split.kind != "folds":
        raise ParameterError(
            f"folds={split.table} is a {split.kind} split; expected a k-fold assignment "
            "(assign_folds)"
        )
    if key is not None and key != split.key:
        raise ParameterError(
            f"key={key!r} differs from the key {split.key!r} of the fold assignment "
            f"{split.table}; leave key out to use the assignment's"
        )
    return split.key if split.key in src.columns else None


def check_reusable(warehouse: Warehouse, split: splits.Split, target: str, plan: Plan) -> None:
    """The fold table must hold the key, the folds, the target and every chosen feature."""
    needed = [split.key, split.fold_column, target, *(f.name for f in plan.features)]
    held = set(warehouse.schema_of(split.table).names)
    missing = [c for c in needed if c not in held]
    if missing:
        raise ColumnError(
            f"fold assignment {split.table} has no columns {missing}; expected the source's "
            "columns next to the folds (assign_folds(..., keep_columns=True))"
        )
