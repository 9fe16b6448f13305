"""Step 1 of scoring: each class's score of a row, in one of the kinds a model family gives.

A family's scores (:class:`Scores`) are the steps after the input step (models/scoring/steps.py)
ending in :data:`~warehouse_ml.models.scoring.normalise.SCORES`, whose columns are the carried
ones (``wml_k_<i>``, ``wml_row``) and each class's score ``wml_j_<i>``, and the normalisation
that turns those scores into probabilities (models/scoring/normalise.py):

* :class:`AdditiveTerms`: log-space terms (Naive Bayes, TAN, logistic regression), each an
  expression per class plus the joins its parameters need (:class:`Term`). Every term of every
  class is a column of its own (step ``wml_terms``), then each class's terms are added in a
  fixed order, pairwise: ``joint_c = (term_1c + term_2c) + (term_3c + term_4c) ...`` (one small
  expression per column: an engine that hashes every subexpression of a projection, as
  DuckDB's planner does, spent 8 ms of a 20 ms one-row query of a 36-attribute TAN view on one
  sum holding every term). Normalised by the log-sum-exp; explanations
  (models/inspection/evidence.py) read the same two steps.
* :class:`ClassProbabilities`: one probability expression per class over the row (a decision
  tree's nested CASE returning each class's leaf probability), renormalised.
* :class:`AggregatedScores`: a relation that aggregates per scored row (k nearest neighbours:
  one row per scored row and its classes' votes), carrying the row's passed-through columns;
  its scores are probabilities or log scores, as the family says.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from warehouse_ml.models.scoring.decision import score_column
from warehouse_ml.models.scoring.normalise import (
    LOG_SOFTMAX,
    RENORMALISED,
    SCORES,
    Normalisation,
)
from warehouse_ml.models.scoring.relations import Join
from warehouse_ml.models.scoring.steps import (
    INPUT,
    Step,
    balanced_sum,
    carried,
    carried_from_input,
)
from warehouse_ml.sqlgen.templates import alias, column

TERMS = "wml_terms"
"""The step of :class:`AdditiveTerms` holding each term of each class as a column."""


@dataclass(frozen=True)
class Term:
    """One additive part of the joint log score: an expression per class, plus its joins;
    ``numbered``: they read the input's row number (a sum per row,
    models/keyed_terms/long_terms.py)."""

    per_class: list[exp.Expression]
    joins: list[Join] = field(default_factory=list)
    numbered: bool = False


def term_column(term: int, class_index: int) -> str:
    """The column of step :data:`TERMS` holding term ``term``'s value for a class."""
    return f"wml_t_{term}_{class_index}"


def _joined(step: exp.Select, joins: Sequence[Join]) -> exp.Select:
    """``step`` with each of ``joins``: LEFT JOIN on its condition, INNER when the relation
    holds a row for every scored row, CROSS for a one-row relation (no condition); in
    increasing ``Join.order``, stable."""
    for join in sorted(joins, key=lambda j: j.order):
        if join.on is None:
            step = step.join(join.relation(), join_type="CROSS", copy=False)
        else:
            kind = "INNER" if join.inner else "LEFT"
            step = step.join(join.relation(), on=join.on, join_type=kind, copy=False)
    return step


class Scores(abc.ABC):
    """Each class's score of a scored row (module docstring)."""

    @property
    @abc.abstractmethod
    def normalisation(self) -> Normalisation:
        """How these scores become probabilities (models/scoring/normalise.py)."""

    @property
    @abc.abstractmethod
    def n_classes(self) -> int:
        """The number of classes scored."""

    @property
    def numbered(self) -> bool:
        """Whether the steps read the input's row number (the query must number its rows)."""
        return False

    @abc.abstractmethod
    def steps(self, passthrough: Sequence[tuple[str, str]], row: str | None) -> list[Step]:
        """The steps after the input step, ending in
        :data:`~warehouse_ml.models.scoring.normalise.SCORES`: the ``passthrough`` columns
        ((source column, output name) pairs) as ``wml_k_<i>``, with ``row`` (the input's row
        number) ``wml_row``, and ``wml_j_<i>`` per class."""


@dataclass(frozen=True)
class AdditiveTerms(Scores):
    """Log-space scores as a sum of terms: ``joint_c = sum_t term_t(c)``."""

    terms: Sequence[Term]

    @property
    def normalisation(self) -> Normalisation:
        return LOG_SOFTMAX

    @property
    def n_classes(self) -> int:
        return len(self.terms[0].per_class)

    @property
    def numbered(self) -> bool:
        return any(term.numbered for term in self.terms)

    def steps(self, passthrough: Sequence[tuple[str, str]], row: str | None) -> list[Step]:
        """:meth:`terms_step`, then the joints of the carried columns."""
        kept = [column(name) for name in carried(len(passthrough), row)]
        return [self.terms_step(passthrough, row), self.joint_step(kept)]

    def terms_step(
        self,
        passthrough: Sequence[tuple[str, str]],
        row: str | None,
        shown: Sequence[exp.Expression] = (),
    ) -> Step:
        """:data:`TERMS` over the input ``AS s``: the carried columns, the terms' joins, the
        aliased ``shown`` expressions of the row (what an explanation shows of it), and term t's
        expression for class i as ``wml_t_<t>_<i>``."""
        step = exp.select(*carried_from_input(passthrough, row)).from_(exp.to_table(INPUT).as_("s"))
        step = _joined(step, [join for term in self.terms for join in term.joins])
        step = step.select(*shown, copy=False)
        for t, term in enumerate(self.terms):
            for i, expression in enumerate(term.per_class):
                step = step.select(alias(expression, term_column(t, i)), copy=False)
        return (TERMS, step)

    def joint_step(self, kept: Sequence[exp.Expression]) -> Step:
        """:data:`~warehouse_ml.models.scoring.normalise.SCORES` over :data:`TERMS`: the
        ``kept`` columns (the carried ones; ``*`` for an explanation, which reads the terms
        again) and each class's joint ``wml_j_<i>``, its terms added in a fixed order."""
        joints = [
            alias(
                balanced_sum([column(term_column(t, i)) for t in range(len(self.terms))]),
                score_column(i),
            )
            for i in range(self.n_classes)
        ]
        return (SCORES, exp.select(*kept, *joints).from_(exp.to_table(TERMS)))


DERIVED = "wml_derived"
"""The step of :class:`ClassProbabilities` computing its ``derived`` columns once per row."""


@dataclass(frozen=True)
class ClassProbabilities(Scores):
    """Each class's probability (>= 0; NULL as 0) as an expression over the scored row
    ``s`` (and the relations of ``joins``), e.g. a decision tree's nested CASE. With
    ``derived`` (aliased expressions over the source row ``s``), those columns are computed
    first, in step :data:`DERIVED`, and ``s`` is that step's row: its carried columns and the
    derived ones (e.g. a value's code, which every level of a tree's node-table walk reads)."""

    per_class: Sequence[exp.Expression]
    joins: Sequence[Join] = ()
    derived: Sequence[exp.Expression] = ()

    @property
    def normalisation(self) -> Normalisation:
        return RENORMALISED

    @property
    def n_classes(self) -> int:
        return len(self.per_class)

    def steps(self, passthrough: Sequence[tuple[str, str]], row: str | None) -> list[Step]:
        first = exp.select(*carried_from_input(passthrough, row)).from_(
            exp.to_table(INPUT).as_("s")
        )
        steps: list[Step] = []
        if self.derived:
            steps.append((DERIVED, first.select(*self.derived, copy=False)))
            kept = [column(name, "s") for name in carried(len(passthrough), row)]
            first = exp.select(*kept).from_(exp.to_table(DERIVED).as_("s"))
        step = _joined(first, self.joins).select(
            *[alias(p, score_column(i)) for i, p in enumerate(self.per_class)], copy=False
        )
        return [*steps, (SCORES, step)]


@dataclass(frozen=True)
class AggregatedScores(Scores):
    """Scores from a relation that aggregates per scored row: ``relation(carried)`` is a query
    over the input step ``AS s`` with one row per scored row: the ``carried`` columns (aliased
    expressions over ``s``: the passed-through ``wml_k_<i>``, then ``wml_row`` when the rows
    are numbered) and ``wml_j_<i>`` per class, of the kind ``normalised_as`` says
    (:data:`~warehouse_ml.models.scoring.normalise.RENORMALISED` for votes or probabilities,
    :data:`~warehouse_ml.models.scoring.normalise.LOG_SOFTMAX` for log scores). The relation
    carries the columns itself (grouping by them with a row number of its own), so the input
    is read once and never joined back: a row number computed twice could differ between the
    two readings on an engine that inlines steps."""

    relation: Callable[[Sequence[exp.Expression]], exp.Query]
    classes: int
    normalised_as: Normalisation = RENORMALISED

    @property
    def normalisation(self) -> Normalisation:
        return self.normalised_as

    @property
    def n_classes(self) -> int:
        return self.classes

    def steps(self, passthrough: Sequence[tuple[str, str]], row: str | None) -> list[Step]:
        return [(SCORES, self.relation(carried_from_input(passthrough, row)))]
