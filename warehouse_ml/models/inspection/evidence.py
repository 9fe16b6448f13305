"""Exact explanations as SQL: each attribute's weight of evidence for a class against another.

Naive Bayes and TAN add their terms in log space (models/scoring/query.py), so the log-odds of two
classes of a row splits exactly into one part per term:

    ln p(c | x) / p(c' | x) = [ln P(c) - ln P(c')] + sum_i [term_i(c) - term_i(c')]

where term_i is ln P(x_i | c) for a Naive Bayes attribute (categorical, or the Gaussian
log-density of a numeric one) and ln P(x_i | parent value, c) for a TAN attribute (a numeric
attribute on its bin). Each difference is the attribute's *evidence* (natural log, nats): no
sampling, no baseline. It is whatever the scoring formula gives the row, so a NULL value
gives 0 and an unseen value gives the difference of the unseen terms; a zero probability
(alpha = 0 only) gives +/-Infinity by the rule of warehouse_ml/sql/models/inspection/evidence.sql.

Which classes a row compares (:class:`Contrast`): its predicted class against the runner-up
(the default), against a named class (a row predicted as that class: against the runner-up),
or every other class against the predicted one (one set of rows per other class).
One-vs-rest does not split into per-attribute parts, so it is not offered.

The steps of :func:`evidence_steps` compute every term as its own column (as the scoring
query does), the joints, the predicted class (ties to the first class, as ``predict``) and the
runner-up (the most probable other class, ties to the first), then each part's evidence, one
column per part: a statement that grows as attributes x classes. models/inspection/reasons.py ranks
the parts and lays them out (``explain`` and explanation views); :func:`mean_evidence_query`
averages them (``attribute_ranking``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from warehouse_ml.errors import ParameterError
from warehouse_ml.models.scoring.decision import argmax, score_column
from warehouse_ml.models.scoring.normalise import MAXED, SCORES, maxed_step
from warehouse_ml.models.scoring.scores import AdditiveTerms, Term, term_column
from warehouse_ml.models.scoring.steps import (
    INPUT,
    Step,
    first_where,
    greatest,
    input_step,
    layer,
    with_steps,
)
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import CATEGORICAL, Feature, value_expression
from warehouse_ml.store.catalog import ModelRecord

CLASS, AGAINST, EVIDENCE, RANK = "class", "against", "evidence", "rank"
"""Output columns of an explanation: the class explained, the class it is weighed against, a
part's evidence and its rank (models/inspection/reasons.py)."""
EVIDENCE_STEP = "wml_evidence"
"""The last step of :func:`evidence_steps`."""
CLASS_INDEX, AGAINST_INDEX = "wml_c", "wml_o"
"""The columns holding each row's class index and against index (NULL: no class to explain)."""

_CHOSEN, _SECONDS, _RUNNER = "wml_chosen", "wml_seconds", "wml_runner"
_CONTRASTED, _INDEXED, _SIDES = "wml_contrasted", "wml_indexed", "wml_sides"
_PREDICTED, _SECOND, _RUNNER_UP = "wml_pred", "wml_second", "wml_runner_up"
_OTHER = "wml_other"


class EveryClass:
    """The ``against`` choice "every other class against the predicted one"
    (:data:`EVERY_CLASS`)."""

    def __repr__(self) -> str:
        return "warehouse_ml.EVERY_CLASS"


EVERY_CLASS = EveryClass()


@dataclass(frozen=True)
class Contrast:
    """The classes a row's evidence compares: ``kind`` is ``"runner_up"`` (the predicted class
    against the runner-up), ``"class"`` (the predicted class against class ``index``; a row
    predicted as that class against the runner-up) or ``"every"`` (each other class against
    the predicted one)."""

    kind: str
    index: int | None = None

    @classmethod
    def make(cls, classes: Sequence[Any], against: Any) -> Contrast:
        """The contrast ``against`` asks for: None (runner-up), :data:`EVERY_CLASS`, or a
        class label of the model."""
        if len(classes) < 2:
            raise ParameterError(
                f"an explanation compares two classes; this model has only {list(classes)}"
            )
        if against is None:
            return cls("runner_up")
        if isinstance(against, EveryClass):
            return cls("every")
        if against not in classes:
            raise ParameterError(
                f"against={against!r} is not a class of the model; expected one of "
                f"{list(classes)}, None (the runner-up) or warehouse_ml.EVERY_CLASS"
            )
        return cls("class", list(classes).index(against))

    def to_json(self, classes: Sequence[Any]) -> dict[str, Any]:
        """The form stored with a view: the named class by its text, so a re-fit whose classes
        moved finds it again."""
        label = None if self.index is None else str(classes[self.index])
        return {"kind": self.kind, "class": label}

    @classmethod
    def from_json(cls, stored: dict[str, Any], classes: Sequence[Any]) -> Contrast:
        """The contrast of a stored view over a model with ``classes``."""
        if stored["kind"] != "class":
            return cls(stored["kind"])
        matches = [c for c in classes if str(c) == stored["class"]]
        if not matches:
            raise ParameterError(
                f"the view explains against class {stored['class']!r}, which the model no "
                f"longer has (classes {list(classes)})"
            )
        return cls.make(classes, matches[0])


def shown_value(record: ModelRecord, name: str) -> exp.Expression:
    """Feature ``name`` of the scored row ``s`` as an explanation shows it, as text: a
    categorical value as it was counted (features.value_expression), a numeric one as it is."""
    fitted = record.feature_types[name]
    value: exp.Expression = column(name, "s")
    if fitted["kind"] == CATEGORICAL:
        value = value_expression(Feature(name, CATEGORICAL, fitted["sql_type"]), value)
    return expressions.as_text(value)


@dataclass(frozen=True)
class Part:
    """One attribute's term and how the explanation shows it: ``value`` is the row's value as
    text; ``parent`` the TAN parent's name and ``parent_value`` its value as text (None for
    Naive Bayes and the TAN root)."""

    attribute: str
    term: Term
    value: exp.Expression
    parent: str | None = None
    parent_value: exp.Expression | None = None


def evidence_column(part: int) -> str:
    """The column of :func:`evidence_steps` holding part ``part``'s evidence (DOUBLE, nats): 0
    the prior, 1..n the attributes."""
    return f"wml_e_{part}"


def value_column(part: int) -> str:
    """The column holding attribute ``part``'s value as shown (text)."""
    return f"wml_v_{part}"


def parent_value_column(part: int) -> str:
    """The column holding attribute ``part``'s parent value as shown (text; TAN only)."""
    return f"wml_pv_{part}"


def case_of(index: exp.Expression, items: dict[int, exp.Expression], kind: str) -> exp.Expression:
    """``CASE index WHEN i THEN items[i] ... END``, a NULL of type ``kind`` when there is none."""
    if not items:
        return exp.cast(exp.null(), kind)
    case = exp.Case(this=index.copy())
    for i, item in items.items():
        case.when(literal(i), item, copy=False)
    return case


def _contrasted(contrast: Contrast, k: int) -> exp.Select:
    """The step choosing each output row's class (``wml_c``) and against class (``wml_o``)."""
    predicted, runner = column(_PREDICTED), column(_RUNNER_UP)
    if contrast.kind == "every":
        others = templates.values([[i] for i in range(k)], _OTHER, [_OTHER])
        keep = exp.or_(
            exp.Is(this=predicted, expression=exp.null()),
            exp.NEQ(this=column(_OTHER, _OTHER), expression=predicted.copy()),
        )
        return (
            exp.select(
                exp.Star(),
                alias(column(_OTHER, _OTHER), CLASS_INDEX),
                alias(predicted, AGAINST_INDEX),
            )
            .from_(exp.to_table(_RUNNER))
            .join(others, join_type="CROSS")
            .where(keep)
        )
    against: exp.Expression = runner
    if contrast.kind == "class":
        named = literal(contrast.index)
        against = exp.case().when(exp.EQ(this=predicted, expression=named), runner).else_(named)
    return layer(_RUNNER, [alias(predicted, CLASS_INDEX), alias(against, AGAINST_INDEX)])


def evidence_steps(
    source: exp.Expression,
    prior: Term,
    parts: Sequence[Part],
    classes: Sequence[Any],
    contrast: Contrast,
    passthrough: Sequence[tuple[str, str]],
    row: str | None = None,
) -> list[Step]:
    """The steps (name, query) computing each source row's (and contrast's) evidence: the last,
    :data:`EVIDENCE_STEP`, has the columns :data:`CLASS_INDEX` / :data:`AGAINST_INDEX`,
    :func:`evidence_column` of the prior (0) and of attribute a = 1..n of ``parts``, their
    values shown (:func:`value_column`, :func:`parent_value_column`), ``wml_k_<i>`` (the
    passthrough) and, with ``row``, ``wml_row`` (models/scoring/query.py)."""
    k, n = len(classes), len(parts)
    shown = []
    for a, part in enumerate(parts, start=1):
        shown.append(alias(part.value, value_column(a)))
        if part.parent_value is not None:
            shown.append(alias(part.parent_value, parent_value_column(a)))
    scores = AdditiveTerms([prior, *(p.term for p in parts)])
    joints = [column(score_column(c)) for c in range(k)]
    chosen = layer(MAXED, [alias(argmax([literal(c) for c in range(k)]), _PREDICTED)])
    others = [
        exp.case().when(exp.NEQ(this=column(_PREDICTED), expression=literal(c)), joints[c])
        for c in range(k)
    ]
    second = greatest(others)
    runner = first_where(
        [
            exp.and_(
                exp.NEQ(this=column(_PREDICTED), expression=literal(c)),
                exp.or_(
                    exp.Is(this=column(_SECOND), expression=exp.null()),
                    exp.EQ(this=joints[c], expression=column(_SECOND)),
                ),
            )
            for c in range(k)
        ],
        [literal(c) for c in range(k)],
    )
    with_second = layer(_CHOSEN, [alias(second, _SECOND)])
    with_runner = layer(_SECONDS, [alias(runner, _RUNNER_UP)])

    undefined = exp.or_(
        exp.Is(this=column(CLASS_INDEX), expression=exp.null()),
        exp.Is(this=column(AGAINST_INDEX), expression=exp.null()),
    )
    indexed = layer(
        _CONTRASTED,
        [
            alias(exp.case().when(undefined, exp.null()).else_(column(index)), f"{index}i")
            for index in (CLASS_INDEX, AGAINST_INDEX)
        ],
    )
    # Each term of the class and of the against class (NULL for a row with no class to
    # explain), then their difference by the rule of
    # warehouse_ml/sql/models/inspection/evidence.sql: 2 CASEs of k branches a part, each read once.
    sides = layer(
        _INDEXED,
        [
            alias(
                case_of(
                    column(f"{index}i"),
                    {c: column(term_column(t, c)) for c in range(k)},
                    "DOUBLE",
                ),
                f"{index}_{t}",
            )
            for t in range(n + 1)
            for index in (CLASS_INDEX, AGAINST_INDEX)
        ],
    )
    evidence = layer(
        _SIDES,
        [
            alias(
                templates.expression(
                    "evidence",
                    term=column(f"{CLASS_INDEX}_{t}"),
                    against=column(f"{AGAINST_INDEX}_{t}"),
                ),
                evidence_column(t),
            )
            for t in range(n + 1)
        ],
    )
    return [
        (INPUT, input_step(source, row)),
        scores.terms_step(passthrough, row, shown),
        scores.joint_step([exp.Star()]),
        maxed_step(k),
        (_CHOSEN, chosen),
        (_SECONDS, with_second),
        (_RUNNER, with_runner),
        (_CONTRASTED, _contrasted(contrast, k)),
        (_INDEXED, indexed),
        (_SIDES, sides),
        (EVIDENCE_STEP, evidence),
    ]


def fenced(query: exp.Select, steps: Sequence[Step], materialized: bool) -> exp.Select:
    """``query`` over ``steps`` (CTEs); with ``materialized`` (an engine's
    ``MATERIALIZED_STEPS``), every step from the joints on is ``AS MATERIALIZED``: an engine
    that inlines each step into the next would copy a step's expressions into every reference
    to them, level after level (the joints into the maximum, both into the predicted class,
    all three into the runner-up: k^4 copies of the terms), past its memory."""
    names = [name for name, _ in steps]
    return with_steps(query, steps, names[names.index(SCORES) :], materialized)


def mean_evidence_query(
    source: exp.Expression,
    prior: Term,
    parts: Sequence[Part],
    classes: Sequence[Any],
    *,
    materialized: bool = False,
) -> exp.Query:
    """One row: ``wml_m_<a>`` (DOUBLE, nats), the mean |evidence| of attribute a = 1..n of
    ``parts`` for each row's predicted class against its runner-up, over the rows of ``source``
    with evidence for it (NULL evidence is left out; an infinite one makes the mean infinite);
    NULL when there is none."""
    steps = evidence_steps(source, prior, parts, classes, Contrast("runner_up"), [])
    means = exp.select(
        *[
            alias(exp.func("AVG", exp.Abs(this=column(evidence_column(a)))), f"wml_m_{a}")
            for a in range(1, len(parts) + 1)
        ]
    ).from_(exp.to_table(EVIDENCE_STEP))
    return fenced(means, steps, materialized)
