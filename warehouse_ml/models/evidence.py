"""Exact explanations as SQL: each attribute's weight of evidence for a class against another.

Naive Bayes and TAN add their terms in log space (models/scoring.py), so the log-odds of two
classes of a row splits exactly into one part per term:

    ln p(c | x) / p(c' | x) = [ln P(c) - ln P(c')] + sum_i [term_i(c) - term_i(c')]

where term_i is ln P(x_i | c) for a Naive Bayes attribute (categorical, or the Gaussian
log-density of a numeric one) and ln P(x_i | parent value, c) for a TAN attribute (a numeric
attribute on its bin). Each difference is the attribute's *evidence* (natural log, nats): no
sampling, no baseline. It is whatever the scoring formula gives the row, so a NULL value
gives 0 and an unseen value gives the difference of the unseen terms; a zero probability
(alpha = 0 only) gives +/-Infinity by the rule of sql/scoring/evidence.sql.

Which classes a row compares (:class:`Contrast`): its predicted class against the runner-up
(the default), against a named class (a row predicted as that class: against the runner-up),
or every other class against the predicted one (one set of rows per other class).
One-vs-rest does not split into per-attribute parts, so it is not offered.

The query computes every term as its own column (as the scoring query does), the joints, the
predicted class (ties to the first class, as ``predict``) and the runner-up (the most probable
other class, ties to the first), then each part's evidence and its *rank*: 1 for the largest
|evidence|, Infinity above every finite value and NULL last, ties to the earlier attribute in
the model's feature order; the prior is rank 0 and is not counted by ``top``. Ranks are counted
by comparisons within the row (no window, so a view of it reads one row in milliseconds and
scans at the speed of the prediction view). Two layouts:

* long (:data:`LONG`): one row per source row, contrast and attribute (the prior first), columns
  ``<keys...>, class, against, attribute, value, parent, parent_value, evidence, rank``;
* wide (:data:`WIDE`, "reason codes"): one row per source row and contrast, columns
  ``<keys...>, class, against, prior_evidence, reason_1, reason_1_value, reason_1_evidence,
  ...`` up to ``top``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from warehouse_ml.errors import ParameterError
from warehouse_ml.models.scoring import (
    INPUT,
    ROW,
    TERMS,
    Term,
    balanced_sum,
    class_literal,
    greatest,
    input_step,
    layer,
    term_column,
    terms_step,
)
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import alias, column, literal
from warehouse_ml.stats.features import CATEGORICAL, Feature, value_expression
from warehouse_ml.store.catalog import ModelRecord

LONG = "long"
WIDE = "wide"
LAYOUTS = (LONG, WIDE)

CLASS, AGAINST, EVIDENCE, RANK = "class", "against", "evidence", "rank"
LONG_COLUMNS = (CLASS, AGAINST, "attribute", "value", "parent", "parent_value", EVIDENCE, RANK)
"""The columns a long explanation adds after the keys."""

_JOINT, _MAXED, _CHOSEN, _SECONDS, _RUNNER = (
    "wml_joint", "wml_maxed", "wml_chosen", "wml_seconds", "wml_runner",
)  # fmt: skip
_CONTRASTED, _INDEXED, _WEIGHTED, _EVIDENCE = (
    "wml_contrasted", "wml_indexed", "wml_weighted", "wml_evidence",
)  # fmt: skip
_KEYED, _RANKED, _SHOWN, _PICKED = "wml_keyed", "wml_ranked", "wml_shown", "wml_picked"
_SHOWN_FIELDS = ("attribute", "value", "parent", "parent_value", EVIDENCE)  # fmt: skip
_PREDICTED, _SECOND, _RUNNER_UP = "wml_pred", "wml_second", "wml_runner_up"
_CLASS, _AGAINST, _OTHER, _POSITION, _PICK = "wml_c", "wml_o", "wml_other", "wml_pos", "wml_a"


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


@dataclass(frozen=True)
class Layout:
    """What an explanation outputs: ``form`` (:data:`LONG` or :data:`WIDE`) and ``top``, the
    most attributes per row and contrast (None: every attribute; a wide layout needs it)."""

    form: str = LONG
    top: int | None = None

    @classmethod
    def make(cls, form: str, top: int | None) -> Layout:
        if form not in LAYOUTS:
            raise ParameterError(f"form must be one of {LAYOUTS}, got {form!r}")
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
            raise ParameterError(f"top must be a positive integer or None, got {top!r}")
        if form == WIDE and top is None:
            raise ParameterError("a wide explanation needs top=k, the number of reasons")
        return cls(form, top)

    def output_names(self, n_attributes: int) -> list[str]:
        """The columns the layout adds after the keys."""
        if self.form == LONG:
            return list(LONG_COLUMNS)
        return [CLASS, AGAINST, "prior_evidence"] + [
            f"reason_{p}{suffix}"
            for p in range(1, self.positions(n_attributes) + 1)
            for suffix in ("", "_value", "_evidence")
        ]

    def positions(self, n_attributes: int) -> int:
        """How many ranked attributes a row and contrast shows."""
        return n_attributes if self.top is None else min(self.top, n_attributes)


def _joint(class_index: int) -> str:
    return f"wml_j_{class_index}"


def _shown(position: int, field: str) -> str:
    """The column holding ``field`` of the part at ``position`` of a row's ranking."""
    return f"wml_s_{position}_{_SHOWN_FIELDS.index(field)}"


def _first_where(conditions: Sequence[exp.Expression], first: int = 0) -> exp.Expression:
    """``CASE WHEN cond_0 THEN first WHEN cond_1 THEN first + 1 ... END``: the index of the
    first condition that holds, NULL when none does."""
    case = exp.case()
    for index, condition in enumerate(conditions, start=first):
        case = case.when(condition, literal(index), copy=False)
    return case


def _case_of(index: exp.Expression, items: dict[int, exp.Expression], kind: str) -> exp.Expression:
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
                exp.Star(), alias(column(_OTHER, _OTHER), _CLASS), alias(predicted, _AGAINST)
            )
            .from_(exp.to_table(_RUNNER))
            .join(others, join_type="CROSS")
            .where(keep)
        )
    against: exp.Expression = runner
    if contrast.kind == "class":
        named = literal(contrast.index)
        against = exp.case().when(exp.EQ(this=predicted, expression=named), runner).else_(named)
    return layer(_RUNNER, [alias(predicted, _CLASS), alias(against, _AGAINST)])


def _ranking_steps(n: int, m: int) -> list[tuple[str, exp.Select]]:
    """Steps after ``wml_keyed`` ending in one whose columns ``wml_a_1 .. wml_a_m`` are the
    attributes (1..n) at ranks 1..m, by the key ``wml_x_<a>`` (|evidence|, -1 for NULL)
    descending, ties to the earlier attribute.

    Every attribute (m = n): each one's rank counted by comparisons, 1 + the attributes before
    it with a key >= its own + those after it with a greater key (n^2 comparisons in two
    steps). The first m < n: selected one rank at a time, the greatest key below the previous
    pick in that order, then the first attribute holding it (2 steps and 2n comparisons a
    rank), so ``top=3`` of 20 attributes costs a fraction of a full ranking.
    """
    keys = [column(f"wml_x_{a}") for a in range(1, n + 1)]
    if m == n:
        ranks = []
        for a in range(1, n + 1):
            beaten = [
                exp.case()
                .when(
                    (exp.GTE if b < a else exp.GT)(this=keys[b - 1], expression=keys[a - 1]),
                    literal(1),
                )
                .else_(literal(0))
                for b in range(1, n + 1)
                if b != a
            ]
            ranks.append(alias(balanced_sum([literal(1), *beaten]), f"wml_r_{a}"))
        at_rank = [
            alias(
                _first_where(
                    [
                        exp.EQ(this=column(f"wml_r_{a}"), expression=literal(p))
                        for a in range(1, n + 1)
                    ],
                    first=1,
                ),
                f"{_PICK}_{p}",
            )
            for p in range(1, m + 1)
        ]
        return [("wml_ranks", layer(_KEYED, ranks)), (_RANKED, layer("wml_ranks", at_rank))]
    steps: list[tuple[str, exp.Select]] = []
    previous = _KEYED
    for p in range(1, m + 1):
        if p > 1:  # the key of the attribute picked last drops below every key (-2)
            picked = column(f"{_PICK}_{p - 1}")
            masked = [
                alias(
                    exp.case()
                    .when(exp.EQ(this=picked.copy(), expression=literal(a)), literal(-2.0))
                    .else_(key),
                    f"wml_y{p}_{a}",
                )
                for a, key in enumerate(keys, start=1)
            ]
            steps.append((f"wml_masked_{p}", layer(previous, masked)))
            previous = f"wml_masked_{p}"
            keys = [column(f"wml_y{p}_{a}") for a in range(1, n + 1)]
        steps.append((f"wml_max_{p}", layer(previous, [alias(greatest(keys), f"wml_m_{p}")])))
        holding = [exp.EQ(this=key, expression=column(f"wml_m_{p}")) for key in keys]
        previous = _RANKED if p == m else f"wml_top_{p}"
        steps.append(
            (
                previous,
                layer(f"wml_max_{p}", [alias(_first_where(holding, first=1), f"{_PICK}_{p}")]),
            )
        )
    return steps


def evidence_steps(
    source: exp.Expression,
    prior: Term,
    parts: Sequence[Part],
    classes: Sequence[Any],
    contrast: Contrast,
    passthrough: Sequence[tuple[str, str]],
    row: str | None = None,
) -> list[tuple[str, exp.Query]]:
    """The steps (name, query) computing each source row's (and contrast's) evidence: the last,
    ``wml_evidence``, has the columns ``wml_c`` / ``wml_o`` (class and against indexes),
    ``wml_e_0`` (the prior's evidence), ``wml_e_<a>`` (attribute a = 1..n of ``parts``),
    ``wml_v_<a>`` / ``wml_pv_<a>`` (values shown) and ``wml_k_<i>`` (the passthrough)."""
    k, n = len(classes), len(parts)
    every = [prior, *(p.term for p in parts)]
    terms = terms_step(every, passthrough, row)
    for a, part in enumerate(parts, start=1):
        terms = terms.select(alias(part.value, f"wml_v_{a}"), copy=False)
        if part.parent_value is not None:
            terms = terms.select(alias(part.parent_value, f"wml_pv_{a}"), copy=False)

    joints = [column(_joint(c)) for c in range(k)]
    joint = layer(
        TERMS,
        [
            alias(balanced_sum([column(term_column(t, c)) for t in range(n + 1)]), _joint(c))
            for c in range(k)
        ],
    )
    maxed = layer(
        _JOINT,
        [alias(greatest(joints), "wml_max")],
    )
    chosen = layer(
        _MAXED,
        [
            alias(
                _first_where([exp.EQ(this=j, expression=column("wml_max")) for j in joints]),
                _PREDICTED,
            )
        ],
    )
    others = [
        exp.case().when(exp.NEQ(this=column(_PREDICTED), expression=literal(c)), joints[c])
        for c in range(k)
    ]
    second = greatest(others)
    runner = _first_where(
        [
            exp.and_(
                exp.NEQ(this=column(_PREDICTED), expression=literal(c)),
                exp.or_(
                    exp.Is(this=column(_SECOND), expression=exp.null()),
                    exp.EQ(this=joints[c], expression=column(_SECOND)),
                ),
            )
            for c in range(k)
        ]
    )
    with_second = layer(_CHOSEN, [alias(second, _SECOND)])
    with_runner = layer(_SECONDS, [alias(runner, _RUNNER_UP)])

    undefined = exp.or_(
        exp.Is(this=column(_CLASS), expression=exp.null()),
        exp.Is(this=column(_AGAINST), expression=exp.null()),
    )
    indexed = layer(
        _CONTRASTED,
        [
            alias(exp.case().when(undefined, exp.null()).else_(column(index)), f"{index}i")
            for index in (_CLASS, _AGAINST)
        ],
    )
    # Each class's weight in a row's contrast: 1 for the class, -1 for the against class, 0
    # for the others (NULL for a row with no class to explain), so an attribute's evidence is
    # the weighted sum of its terms: t(c) - t(c') to the last bit (x * 1, x * -1 and x * 0 are
    # exact, and adding 0 is), with no CASE a term. Where that sum is NULL (a NULL term, only
    # with alpha = 0, or no class to explain) the rule of sql/scoring/evidence.sql decides.
    weighted = layer(
        _INDEXED,
        [
            alias(
                exp.case()
                .when(exp.EQ(this=column(f"{_CLASS}i"), expression=literal(c)), literal(1.0))
                .when(exp.EQ(this=column(f"{_AGAINST}i"), expression=literal(c)), literal(-1.0))
                .when(exp.Is(this=column(f"{_CLASS}i"), expression=exp.null()), exp.null())
                .else_(literal(0.0)),
                f"wml_w_{c}",
            )
            for c in range(k)
        ],
    )

    def weight_of_evidence(t: int) -> exp.Expression:
        terms = [column(term_column(t, c)) for c in range(k)]
        side = {
            index: _case_of(column(f"{index}i"), dict(enumerate(terms)), "DOUBLE")
            for index in (_CLASS, _AGAINST)
        }
        products = [
            exp.Mul(this=term.copy(), expression=column(f"wml_w_{c}"))
            for c, term in enumerate(terms)
        ]
        total = products[0]
        for product in products[1:]:
            total = exp.Add(this=total, expression=product)
        rule = templates.expression("evidence", term=side[_CLASS], against=side[_AGAINST])
        return exp.func("COALESCE", total, rule)

    evidence = layer(_WEIGHTED, [alias(weight_of_evidence(t), f"wml_e_{t}") for t in range(n + 1)])
    return [
        (INPUT, input_step(source, row)),
        (TERMS, terms),
        (_JOINT, joint),
        (_MAXED, maxed),
        (_CHOSEN, chosen),
        (_SECONDS, with_second),
        (_RUNNER, with_runner),
        (_CONTRASTED, _contrasted(contrast, k)),
        (_INDEXED, indexed),
        (_WEIGHTED, weighted),
        (_EVIDENCE, evidence),
    ]


def explanation_query(
    source: exp.Expression,
    prior: Term,
    parts: Sequence[Part],
    classes: Sequence[Any],
    contrast: Contrast,
    layout: Layout,
    *,
    passthrough: Sequence[tuple[str, str]],
    row: str | None = None,
    row_number: str | None = None,
    materialized: bool = False,
) -> exp.Query:
    """The explanation of ``source``'s rows (module docstring), in ``layout``.

    ``passthrough``: (source column, output name) pairs, first in the output; with ``row`` (a
    name no source column has) the output comes in source order, then class order of the
    contrasts, then rank, and ``row_number`` names a first column holding the 0-based source
    position (BIGINT). ``materialized`` marks every step from the contrast on ``AS
    MATERIALIZED`` (an engine's ``MATERIALIZED_STEPS``: an engine that inlines each step into
    the next would copy a step's expressions into every reference to them, level after level
    of the ranking, past its memory).
    """
    n = len(parts)
    steps = evidence_steps(source, prior, parts, classes, contrast, passthrough, row)
    keyed = layer(
        _EVIDENCE,
        [
            alias(
                exp.func("COALESCE", exp.Abs(this=column(f"wml_e_{a}")), literal(-1.0)),
                f"wml_x_{a}",
            )
            for a in range(1, n + 1)
        ],
    )
    m = layout.positions(n)
    ranking = _ranking_steps(n, m)

    def shown(index: exp.Expression) -> list[exp.Expression]:
        """attribute, value, parent, parent_value and evidence of attribute ``index``."""
        return [
            _case_of(index, {a: literal(p.attribute) for a, p in enumerate(parts, 1)}, "VARCHAR"),
            _case_of(index, {a: column(f"wml_v_{a}") for a in range(1, n + 1)}, "VARCHAR"),
            _case_of(
                index, {a: literal(p.parent) for a, p in enumerate(parts, 1) if p.parent}, "VARCHAR"
            ),
            _case_of(
                index,
                {
                    a: column(f"wml_pv_{a}")
                    for a, p in enumerate(parts, 1)
                    if p.parent_value is not None
                },
                "VARCHAR",
            ),
            _case_of(index, {a: column(f"wml_e_{a}") for a in range(1, n + 1)}, "DOUBLE"),
        ]

    # Each shown part once a source row (and contrast): wml_s_<position>_<field>, fields as
    # _SHOWN_FIELDS, position 0 the prior (its evidence only).
    labels = {c: class_literal(label) for c, label in enumerate(classes)}
    shown_columns = [
        alias(_case_of(column(_CLASS), labels, "VARCHAR"), "wml_class"),
        alias(_case_of(column(_AGAINST), labels, "VARCHAR"), "wml_against"),
        alias(column("wml_e_0"), _shown(0, EVIDENCE)),
    ]
    for p in range(1, m + 1):
        for name, item in zip(_SHOWN_FIELDS, shown(column(f"{_PICK}_{p}")), strict=True):
            shown_columns.append(alias(item, _shown(p, name)))
    ranking.append((_SHOWN, layer(_RANKED, shown_columns)))
    final = exp.select(
        *(
            [alias(exp.Sub(this=column(ROW), expression=literal(1)), row_number)]
            if row is not None and row_number is not None
            else []
        ),
        *[alias(column(f"wml_k_{i}"), name) for i, (_, name) in enumerate(passthrough)],
        alias(column("wml_class"), CLASS),
        alias(column("wml_against"), AGAINST),
    )
    if layout.form == LONG:
        positions = templates.values([[p] for p in range(m + 1)], "wml_positions", [_POSITION])
        picked = (
            exp.select(exp.Star()).from_(exp.to_table(_SHOWN)).join(positions, join_type="CROSS")
        )
        ranking.append((_PICKED, picked))
        for name in _SHOWN_FIELDS:
            first = 0 if name == EVIDENCE else 1
            at = {p: column(_shown(p, name)) for p in range(first, m + 1)}
            kind = "DOUBLE" if name == EVIDENCE else "VARCHAR"
            final = final.select(alias(_case_of(column(_POSITION), at, kind), name), copy=False)
        final = final.select(alias(column(_POSITION), RANK), copy=False)
        order = [column(_CLASS, _PICKED), column(_POSITION, _PICKED)]
    else:
        final = final.select(alias(column(_shown(0, EVIDENCE)), "prior_evidence"), copy=False)
        for p in range(1, m + 1):
            final = final.select(
                alias(column(_shown(p, "attribute")), f"reason_{p}"),
                alias(column(_shown(p, "value")), f"reason_{p}_value"),
                alias(column(_shown(p, EVIDENCE)), f"reason_{p}_evidence"),
                copy=False,
            )
        order = [column(_CLASS, _SHOWN)]
    last = ranking[-1][0]
    final = final.from_(exp.to_table(last), copy=False)
    if row is not None:
        final = final.order_by(column(ROW, last), *order, copy=False)
    steps += [(_KEYED, keyed), *ranking]
    return _with_steps(final, steps, materialized)


def _with_steps(
    query: exp.Select, steps: Sequence[tuple[str, exp.Query]], materialized: bool
) -> exp.Select:
    """``query`` over ``steps`` (CTEs); with ``materialized``, every step from the contrast on
    is ``AS MATERIALIZED`` (see :func:`explanation_query`)."""
    names = [name for name, _ in steps]
    fenced = set(names[names.index(_CONTRASTED) :]) if materialized else set()
    for name, step in steps:
        query = query.with_(name, as_=step, copy=False, materialized=name in fenced or None)
    return query


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
            alias(exp.func("AVG", exp.Abs(this=column(f"wml_e_{a}"))), f"wml_m_{a}")
            for a in range(1, len(parts) + 1)
        ]
    ).from_(exp.to_table(_EVIDENCE))
    return _with_steps(means, steps, materialized)
