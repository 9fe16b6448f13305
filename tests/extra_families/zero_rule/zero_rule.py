"""ZeroR, the prior-only classifier, written from scratch outside the library as a new family
would be inside it: this module, its kind in specs.py, its templates under sql/zero_rule/.

The oracle is scikit-learn's ``DummyClassifier(strategy="prior")``: every row's probability of
class c is the training rows' share of c, (n_c + alpha) / (n + K alpha) with ``alpha = 0``
(n_c the class's rows, or their summed weights; ``alpha = 1`` is Weka's ZeroR, whose counts
start at 1). No attribute is read; the fit writes the class table every family writes and the
probabilities (sql/zero_rule/create_zero_rule_priors.sql), and scoring writes them into the
query as literals. Cross-validation fits each fold on its own (the kind declares no
``FoldsAtOnce``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from warehouse_ml.engines.base import Warehouse
from warehouse_ml.engines.sources import Source
from warehouse_ml.models.base import Classifier
from warehouse_ml.models.capabilities import WeightedFit
from warehouse_ml.models.learners.shared.classes import create_classes_table
from warehouse_ml.models.learners.shared.parameters import keep_checked
from warehouse_ml.models.scoring.context import ScoringContext
from warehouse_ml.models.scoring.scores import ClassProbabilities
from warehouse_ml.models.state import LearnedState
from warehouse_ml.models.training import Training
from warehouse_ml.sqlgen import templates
from warehouse_ml.stats.validation import CardinalityCheck
from warehouse_ml.store.catalog import ModelRecord
from warehouse_ml.store.ownership import Staging


class ZeroRule(WeightedFit, Classifier):
    """ZeroR: every row scored by the training classes' shares (module docstring)."""

    kind = "zero_rule"
    state_class = LearnedState

    def __init__(
        self,
        *,
        alpha: float = 0.0,
        categorical: Iterable[str] | None = None,
        numeric: Iterable[str] | None = None,
        class_weight: str | dict[Any, float] | None = None,
    ) -> None:
        super().__init__(categorical=categorical, numeric=numeric, class_weight=class_weight)
        keep_checked(self, ZeroRule.kind, alpha=alpha)

    def _learn_tables(
        self, warehouse: Warehouse, training: Training, tables: Staging, check: CardinalityCheck
    ) -> LearnedState:
        """The class table and each partition's class probabilities (``priors``)."""
        classes = tables.table("classes")
        create_classes_table(warehouse, classes, training.classes, 0.0, training.count_type)
        warehouse.run(
            "create_zero_rule_priors", table=tables.table("priors"), classes=classes,
            alpha=float(self.alpha),
        )  # fmt: skip
        return LearnedState()

    def _scores(
        self, context: ScoringContext, record: ModelRecord, source: Source
    ) -> ClassProbabilities:
        """Each class's probability as a literal, the same for every row and dialect."""
        rows = context.warehouse.fetch(
            "select_zero_rule_priors", priors=record.parameters("priors")
        )
        return ClassProbabilities(
            [templates.literal(p) for p in rows.column("probability").to_pylist()]
        )
