"""What a model family can do beyond the learner protocol every kind keeps (models/base.py:
fit, catalog, predict, views, export), each capability a small mixin a family declares by
naming it among its bases, before ``Classifier`` so its hooks come first, e.g.
``class NaiveBayes(AdditiveScores, WeightedFit, CountUpdates, ExactLeaveOneOut, CountSummaries,
FoldsAtOnce, Classifier)``.

Code outside a learner's own module asks ``isinstance(model, <capability>)`` (or
:func:`require`, which raises :class:`~warehouse_ml.errors.NotSupportedError` naming the kind
and the capability), never the model's class or kind name; ``tests/package/test_layers.py`` holds it
to that. Each docstring says what the capability promises and which test of
``tests/learners/test_conformance.py`` checks it for every registered kind that declares it.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from warehouse_ml.errors import NotSupportedError
from warehouse_ml.models.members import WeightedMembers
from warehouse_ml.stats.features import Feature

if TYPE_CHECKING:  # annotations of the hooks: the roles above this one define them
    from sqlglot import exp

    from warehouse_ml.engines.base import Warehouse
    from warehouse_ml.engines.sources import Source
    from warehouse_ml.models.inspection.evidence import Part
    from warehouse_ml.models.scoring.context import ScoringContext
    from warehouse_ml.models.scoring.scores import Scores, Term
    from warehouse_ml.models.training import ClassCount, FoldedRows, Training
    from warehouse_ml.stats.validation import CardinalityCheck
    from warehouse_ml.store.catalog import ModelRecord
    from warehouse_ml.store.ownership import Staging


class Capability(abc.ABC):  # noqa: B024 (a marker: its subclasses are the capabilities)
    """Base of the capabilities (:func:`require` names them by class). A capability holds the
    hooks it needs (abstract methods a declaring kind implements) beside what it promises: a
    kind that does not declare one has none of its hooks."""


class Evidence(Capability):
    """Each attribute's part of a row's score is an explanation's evidence (``_parts``:
    models/inspection/evidence.py), so ``explain`` weighs the attributes of a row, the
    explanation views give its reason codes, and ``attribute_ranking(source=...)`` its mean
    evidence. A kind without it explains its rows another way (its own ``explain``: a
    tree's decision path, k-NN's neighbours) and has no explanation view. Checked by
    ``test_additive_scores_explain_the_log_odds_exactly`` for the kinds whose evidence is exact
    (:class:`AdditiveScores`)."""

    @abc.abstractmethod
    def _parts(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Part]:
        """One term per attribute of the fitted model ``record``, in feature order, with what
        an explanation shows of it (models/inspection/evidence.py)."""


class AdditiveScores(Evidence):
    """The joint log score of a class is the log prior plus one log-space term per attribute
    (``_terms``), each class's score their sum (``_scores``), so an explanation's per-attribute
    evidence (``_parts``, whose sum with the prior is the joint log score of ``_terms``) sums
    exactly to the log-odds of two classes (models/inspection/evidence.py). Checked by
    ``test_additive_scores_explain_the_log_odds_exactly``."""

    @abc.abstractmethod
    def _terms(self, warehouse: Warehouse, record: ModelRecord, source: Source) -> list[Term]:
        """The log-space terms that score ``source`` with the model in ``record`` (whose
        parameter tables ``warehouse`` can read)."""

    def _scores(self, context: ScoringContext, record: ModelRecord, source: Source) -> Scores:
        """Each class's score of a row of ``source`` (step 1 of models/scoring/query.py): the
        sum of :meth:`_terms`, the same in every dialect."""
        from warehouse_ml.models.scoring.scores import AdditiveTerms  # a role above this one

        return AdditiveTerms(self._terms(context.warehouse, record, source))


class WeightedFit(Capability):
    """``fit(..., sample_weight=column)`` and ``class_weight`` count every row as its weight:
    an integer weight w equals w copies of the row (stats/weights.py), under the kind's
    :attr:`COPIES_SETTINGS`. Checked by ``test_integer_weights_equal_repeated_rows``. A kind
    without it has no weighted form and refuses weights wherever they are given
    (:func:`require_weights`)."""

    COPIES_SETTINGS: ClassVar[Mapping[str, Any]] = {}
    """Constructor arguments under which an integer weight is exactly that many copies: a kind
    whose thresholds count rows, not weights (a decision tree's ``min_leaf``), names the
    settings that turn them off; empty for a kind whose every count sums weights."""


class CountUpdates(Capability):
    """The parameters are functions of counts, so ``update`` (models/living/updating.py) adds a
    batch's counts to the stored ones: the new version equals a re-fit on the training rows and
    every batch, given the stored bin edges. Checked by
    ``test_an_update_equals_a_fit_on_base_and_batch``."""


class ExactLeaveOneOut(Capability):
    """Leave-one-out cross-validation has a closed form from the full counts (evaluation/loo.py
    subtracts each row's own counts): it equals n re-fits, each without one row. The closed
    form reads Naive Bayes' settings (below), which a declaring kind has, and starts from the
    full-data model's parameter tables, which the kind writes from its counts
    (:meth:`_write_count_parameters`). Checked by ``test_exact_leave_one_out_equals_n_refits``."""

    alpha: float
    prior_alpha: float
    m: float
    var_smoothing: float
    block_size: int

    @abc.abstractmethod
    def _write_count_parameters(
        self,
        warehouse: Warehouse,
        counts: exp.Query | None,
        moments: exp.Query | None,
        classes: Sequence[ClassCount],
        tables: Staging,
        *,
        categorical: Sequence[str],
    ) -> None:
        """The full-data model's parameter tables (``classes``, ``categorical``, ``unseen``,
        ``gaussian``) in ``tables``, from the class counts ``classes`` and the training counts:
        ``counts`` (wml_part, attribute, value, class_label, n) of the ``categorical``
        attributes and ``moments`` (wml_part, attribute, class_label, n, mean, variance) of the
        numeric ones; None where there is no such attribute."""


class CountSummaries(Capability):
    """The model stores each attribute's training histogram or counts per class, so drift
    (``drift``, ``create_drift_view``: models/living/drift.py) and the model's own attribute ranking
    (``attribute_ranking``: models/inspection/relevance.py) are computed from them without reading
    the training data. Checked by ``test_the_training_table_has_no_drift``."""


class FoldsAtOnce(Capability):
    """``learn_tables`` may take a cross-validation's every fold at once (a ``Training`` with
    ``held_out``), their tables then scoring every fold in one query (evaluation/crossval.py);
    :meth:`learns_folds_at_once` says for which features. Without it cross-validation learns
    one model per fold. Checked by ``test_cross_validation_equals_fitting_each_fold``."""

    @abc.abstractmethod
    def learns_folds_at_once(self, features: Sequence[Feature]) -> bool:
        """Whether every fold's model is learned at once for these features."""


class MembersAtOnce(WeightedFit):
    """``learn_tables`` learns members of row weights of their own (models/members.py:
    ``WeightedMembers``, a bootstrap's or a boosting round's) at once, from count scans of the
    rows once per member (learners/shared/member_rows.py): member m learns what a weighted fit with
    its weights as the weight column learns. :meth:`learns_members_at_once` says for which
    features (and the model's settings). Checked by ``tests/learners/test_conformance.py::
    test_members_of_their_own_row_weights_are_the_weighted_fits_of_those_weights``."""

    @abc.abstractmethod
    def learns_members_at_once(self, features: Sequence[Feature]) -> bool:
        """Whether members of their own row weights are learned at once for these features
        with this model's settings."""


class ErrorsOfEveryK(Capability):
    """One search ranks every held-out row's nearest stored rows of its training folds, and
    each k up to the largest reads its votes from that one ranked table (ranks <= k), so
    ``select_k`` (evaluation/k_nearest_selection.py) cross-validates every candidate k at the
    cost of one cross-validation (:meth:`_errors_of_every_k`). Checked by
    ``tests/learners/test_k_nearest_neighbors.py::test_select_k_errors_equal_cross_validating_each_k``."""

    @abc.abstractmethod
    def _errors_of_every_k(
        self, warehouse: Warehouse, folded: FoldedRows, ks: Sequence[int], tables: Staging,
        check: CardinalityCheck,
    ) -> dict[int, float]:  # fmt: skip
        """Each k of ``ks``' cross-validated error (the share of labelled held-out rows
        predicted wrong) of this model's settings (its own k the largest of ``ks``) on the
        ``folded`` rows, its work tables in ``tables``."""


class ScoresByStoredRows(Capability):
    """Scoring reads every stored training row for each scored row (k nearest neighbours), so
    its cost is the product of the two tables' rows, not a pass over the scored rows: callers
    that score large tables with every kind (the demo) fit such a kind on a sample. Checked by
    the kind's own tests (its search against scikit-learn's)."""


def folds_at_once(model: Any, features: Sequence[Feature]) -> bool:
    """Whether ``model``'s kind declares :class:`FoldsAtOnce` and learns every fold at once for
    ``features``."""
    return isinstance(model, FoldsAtOnce) and model.learns_folds_at_once(features)


def require(model: Any, capability: type[Capability], call: str, instead: str = "") -> None:
    """Refuse (:class:`NotSupportedError` naming the model's kind and the capability) a call
    ``call`` on a model whose kind does not declare ``capability``; ``instead`` says what to do
    then."""
    if not isinstance(model, capability):
        refuse(model, capability, call, instead)


def require_learnable(model: Any, training: Training) -> None:
    """Refuse (:class:`NotSupportedError` naming the kind and the capability) a ``training``
    that ``model``'s kind cannot learn whole, rather than learn part of it: every fold at once
    needs :class:`FoldsAtOnce` for the training's features, members of their own row weights
    :class:`MembersAtOnce` for them, stored counts :class:`CountUpdates`, a weight column
    :class:`WeightedFit`."""
    if training.fold_column is not None:
        _require_at_once(
            model, FoldsAtOnce, folds_at_once(model, training.features),
            "learning every fold at once", "learns these features fold by fold",
        )  # fmt: skip
    if isinstance(training.members, WeightedMembers):
        _require_at_once(
            model, MembersAtOnce,
            isinstance(model, MembersAtOnce) and model.learns_members_at_once(training.features),
            "learning members of their own row weights",
            "learns them one member at a time with these features or settings",
        )  # fmt: skip
    if training.stored is not None:
        require(model, CountUpdates, "an update of stored counts")
    if training.weight is not None:
        require(model, WeightedFit, "a weighted fit")


def _require_at_once(
    model: Any, capability: type[Capability], honoured: bool, call: str, one_at_a_time: str
) -> None:
    """Refuse ``call`` unless ``honoured``: the model's kind lacks ``capability``, or has it
    but ``one_at_a_time`` for this training."""
    if not honoured:
        lacks = one_at_a_time if isinstance(model, capability) else "does not declare it"
        refuse(model, capability, call, lacks=lacks)


def refuse(
    model: Any,
    capability: type[Capability],
    call: str,
    instead: str = "",
    lacks: str = "does not declare it",
) -> None:
    """Raise the :class:`NotSupportedError` of :func:`require`: ``call`` on ``model`` needs
    ``capability``, which the model's kind ``lacks`` (it does not declare it, or not for
    this call's features)."""
    kind = getattr(model, "kind", type(model).__name__)
    raise NotSupportedError(
        f"{call} needs a model kind with capability {capability.__name__}; model kind "
        f"{kind!r} ({type(model).__name__}) {lacks}" + (f": {instead}" if instead else "")
    )


def require_weights(model: Any, sample_weight: str | None, class_weight: Any) -> None:
    """The one check of weights: refuse (:class:`NotSupportedError` naming the kind) a
    ``sample_weight`` column or a ``class_weight`` of ``model`` when its kind has no weighted form
    (does not declare :class:`WeightedFit`). It is made where weights enter, before any work:
    whenever a model's ``class_weight`` is set (its constructor, an assignment:
    ``Classifier.class_weight``), at the start of ``fit``, and by the plan every evaluation
    makes before its first table (evaluation/planning.py: ``cross_validate``,
    ``select_model``, ``select_k``; the command line's ``train`` and ``evaluate``), so no
    evaluation measures a weighted model that no fit of its kind can make."""
    if sample_weight is None and class_weight is None:
        return
    given = "sample_weight" if sample_weight is not None else "class_weight"
    require(
        model, WeightedFit, given,
        "the kind has no weighted form; leave the weights out, or choose a kind that declares "
        "it",
    )  # fmt: skip
