"""The scoring query: plain SQL that turns a source's rows into class probabilities.

A model describes itself as a list of :class:`Term` objects: each contributes one log-space
expression per class and the joins its parameters need. The query then

1. computes each term of each class as a column of its own, then adds the terms of each class
   in a fixed order, pairwise: ``joint_c = (term_1c + term_2c) + (term_3c + term_4c) ...``
   (one small expression per column: an engine that hashes every subexpression of a
   projection, as DuckDB's planner does, spent 8 ms of a 20 ms one-row query of a 36-attribute
   TAN view on one sum holding every term);
2. takes ``max = GREATEST(joint_0, ..., joint_{K-1})`` and ``total = sum_c exp(joint_c - max)``
   (the max-shift log-sum-exp, added pairwise in class order, so results are identical on
   every run);
3. outputs ``p_c = exp(joint_c - max) / total`` and the decision.

An impossible class (a zero-probability term, only with ``alpha = 0``) has a NULL joint,
probability 0 and log probability -infinity (as ln 0, and scikit-learn's ``predict_log_proba``);
a row for which every class is impossible gets NULL probabilities and log probabilities and a
NULL prediction. Only standard SQL is used, so a view over this query runs in any SQL client.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from warehouse_ml.errors import ParameterError
from warehouse_ml.sqlgen import expressions, templates
from warehouse_ml.sqlgen.templates import TableName, alias, column, literal
from warehouse_ml.stats.counting import PARTITION

INPUT = "wml_input"
TERMS = "wml_terms"
JOINT = "wml_joint"
MAXED = "wml_maxed"
SHIFTED = "wml_shifted"
TOTALLED = "wml_totalled"
POSTERIOR = "wml_posterior"
ROW = "wml_row"
MAX = "wml_max"
TOTAL = "wml_total"


@dataclass(frozen=True)
class Join:
    """A parameter relation joined to the source: ``LEFT JOIN (query) AS name ON condition``,
    a CROSS JOIN of a one-row relation when ``on`` is None, or an INNER JOIN when ``inner``
    (for a relation that holds a matching row for every scored row, e.g. a lookup table).
    ``query`` is a query (joined as a subquery) or a table."""

    query: exp.Query | exp.Table
    name: str
    on: exp.Expression | None = None
    inner: bool = False

    def relation(self) -> exp.Expression:
        """The joined relation under its alias ``name``."""
        if isinstance(self.query, exp.Table):
            return exp.alias_(self.query.copy(), self.name, table=True)
        return self.query.subquery(self.name)


@dataclass(frozen=True)
class Term:
    """One additive part of the joint log score: an expression per class, plus its joins."""

    per_class: list[exp.Expression]
    joins: list[Join] = field(default_factory=list)


@dataclass(frozen=True)
class Decision:
    """How a prediction is chosen from the class probabilities.

    * ``argmax`` (default, 0/1 loss): the most probable class, ties to the first in class order;
    * ``threshold``: binary models only, ``positive`` when P(positive) >= threshold;
    * ``loss``: minimum expected loss, ``loss[i][j]`` = cost of predicting class j when the
      truth is class i; ties to the first class.

    ``labels`` are the classes the rule was made for, in the order of ``loss``'s rows and
    columns (the model's classes then): a rule is stored by label (:meth:`to_json`) and applies
    to a model version only if its classes are exactly those labels (:meth:`over`), so a
    threshold or a cost never moves to another class.
    """

    threshold: float | None = None
    positive: Any = None
    loss: tuple[tuple[float, ...], ...] | None = None
    labels: tuple[Any, ...] = ()

    @classmethod
    def make(
        cls,
        classes: Sequence[Any],
        *,
        threshold: float | None = None,
        positive: Any = None,
        loss: Sequence[Sequence[float]] | None = None,
    ) -> Decision:
        """Validate a decision rule against a model's classes."""
        if threshold is not None and loss is not None:
            raise ParameterError("give either a threshold or a loss matrix, not both")
        if threshold is not None:
            if len(classes) != 2:
                raise ParameterError(
                    f"a threshold needs a binary model; this one has {len(classes)} classes"
                )
            if not 0.0 <= _number("threshold", threshold) <= 1.0:
                raise ParameterError(f"threshold must be within [0, 1], got {threshold!r}")
            if positive is None:
                positive = classes[1]
            if positive not in classes:
                raise ParameterError(f"positive class {positive!r} is not one of {list(classes)}")
            return cls(threshold=float(threshold), positive=positive, labels=tuple(classes))
        if loss is not None:
            try:
                matrix = [[_number("a loss matrix entry", x) for x in row] for row in loss]
            except TypeError:
                raise ParameterError(
                    f"loss must be a list of rows (a KxK matrix), got {loss!r}"
                ) from None
            k = len(classes)
            if len(matrix) != k or any(len(row) != k for row in matrix):
                shape = f"{len(matrix)} rows of lengths {[len(row) for row in matrix]}"
                raise ParameterError(
                    f"loss matrix must be {k}x{k} (classes {list(classes)}), got {shape}"
                )
            bad = [x for row in matrix for x in row if not 0.0 <= x < float("inf")]
            if bad:
                raise ParameterError(
                    f"loss matrix entries must be finite numbers >= 0, got {bad[0]!r}"
                )
            return cls(loss=tuple(tuple(row) for row in matrix), labels=tuple(classes))
        return cls()

    @property
    def names_classes(self) -> bool:
        """Whether the rule names classes (a threshold or a loss matrix; argmax names none)."""
        return self.threshold is not None or self.loss is not None

    def over(self, classes: Sequence[Any]) -> Decision:
        """The same rule for a model version whose classes are ``classes``: its positive class
        and costs follow their labels (matched by text, as the catalog stores labels as JSON),
        never their positions. A ParameterError when the classes are not exactly the rule's
        labels (a class added or gone), as ``predict`` with these options would refuse."""
        if not self.names_classes:
            return Decision()
        current = {str(c): c for c in classes}
        made = [str(label) for label in self.labels]
        if sorted(current) != sorted(made) or len(made) != len(classes):
            raise ParameterError(
                f"the decision rule ({self.describe()}) was made for the classes "
                f"{list(self.labels)}; the model's classes are {list(classes)}: a rule applies "
                "only to the classes it names"
            )
        if self.threshold is not None:
            return Decision.make(
                classes, threshold=self.threshold, positive=current[str(self.positive)]
            )
        place = [made.index(str(c)) for c in classes]
        loss = self.loss or ()
        return Decision.make(classes, loss=[[loss[i][j] for j in place] for i in place])

    def describe(self) -> str:
        """The rule in a few words, for messages."""
        if self.threshold is not None:
            return f"threshold={self.threshold!r}, positive={self.positive!r}"
        if self.loss is not None:
            return f"loss={[list(row) for row in self.loss]!r}"
        return "argmax"

    def to_json(self) -> dict[str, Any]:
        """The form stored with a view: the rule and the labels it was made for."""
        return {
            "threshold": self.threshold,
            "positive": self.positive,
            "loss": self.loss,
            "labels": list(self.labels),
        }

    @classmethod
    def from_json(cls, stored: dict[str, Any], classes: Sequence[Any]) -> Decision:
        """A stored rule (:meth:`to_json`) for a model version whose classes are ``classes``
        (:meth:`over`). A rule stored without ``labels`` (before rules were kept by label) gave
        its loss matrix by position: its positions are read as ``classes``, the classes of the
        version it is applied to (a new version with other classes is refused before it is
        published, models/scoring/prediction.py), and a shape that does not fit them is a
        ParameterError."""
        rule = cls(
            threshold=stored.get("threshold"),
            positive=stored.get("positive"),
            loss=None if stored.get("loss") is None else tuple(map(tuple, stored["loss"])),
            labels=tuple(stored.get("labels") or ()),
        )
        if not rule.names_classes:
            return cls()
        if "labels" in stored:
            return rule.over(classes)
        return cls.make(classes, threshold=rule.threshold, positive=rule.positive, loss=rule.loss)


def _number(what: str, value: Any) -> float:
    """``float(value)``, or a ParameterError naming ``what`` (NaN fails any range check)."""
    if isinstance(value, bool):
        raise ParameterError(f"{what} must be a number, got {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ParameterError(f"{what} must be a number, got {value!r}") from None


def class_literal(label: Any) -> exp.Expression:
    """A class label as a SQL literal of its own kind (number, boolean or text)."""
    return literal(label)


def balanced_sum(items: Sequence[exp.Expression]) -> exp.Expression:
    """``items`` added pairwise, ``(t1 + t2) + (t3 + t4) ...``: a fixed order (so results are
    identical on every run and engine) whose nesting depth grows as log2 of the number of terms
    (a left-to-right chain of 1,000 terms exceeds DuckDB's expression depth limit)."""

    def grouped(item: exp.Expression) -> exp.Expression:
        return exp.paren(item, copy=False) if isinstance(item, exp.Binary) else item

    level = list(items)
    while len(level) > 1:
        paired = [
            exp.Add(this=grouped(level[i]), expression=grouped(level[i + 1]))
            for i in range(0, len(level) - 1, 2)
        ]
        level = paired + level[len(level) - len(level) % 2 :]
    return level[0]


def _internal(prefix: str, i: int) -> str:
    return f"wml_{prefix}_{i}"


def term_column(term: int, class_index: int) -> str:
    return f"wml_t_{term}_{class_index}"


def _prediction(classes: Sequence[Any], decision: Decision) -> exp.Expression:
    k = len(classes)
    probability = [column(_internal("p", i)) for i in range(k)]
    decision = decision.over(classes)
    if decision.threshold is not None:
        pos = list(classes).index(decision.positive)
        neg = 1 - pos
        return (
            exp.case()
            .when(
                exp.GTE(this=probability[pos], expression=literal(decision.threshold)),
                class_literal(classes[pos]),
            )
            .else_(class_literal(classes[neg]))
        )
    if decision.loss is not None:
        scores = [
            balanced_sum(
                [
                    exp.Mul(this=literal(decision.loss[i][j]), expression=probability[i].copy())
                    for i in range(k)
                ]
            )
            for j in range(k)
        ]
        best = _least(scores)
        case = exp.case()
        for j in range(k):
            case = case.when(
                exp.EQ(this=scores[j], expression=best.copy()), class_literal(classes[j])
            )
        return case
    # argmax of the joint log scores (the same class as the argmax of the probabilities, but
    # exact where two joints differ by less than a rounding of exp); ties to the first class
    case = exp.case()
    for i in range(k):
        case = case.when(
            exp.EQ(this=column(_internal("j", i)), expression=column(MAX)),
            class_literal(classes[i]),
        )
    return case


def greatest(items: Sequence[exp.Expression]) -> exp.Expression:
    """GREATEST that skips NULLs (the behaviour of DuckDB, PostgreSQL and Spark)."""
    return exp.Greatest(
        this=items[0].copy(), expressions=[i.copy() for i in items[1:]], ignore_nulls=True
    )


def _least(items: Sequence[exp.Expression]) -> exp.Expression:
    """LEAST that skips NULLs."""
    return exp.Least(
        this=items[0].copy(), expressions=[i.copy() for i in items[1:]], ignore_nulls=True
    )


def layer(previous: str, columns: Sequence[exp.Expression]) -> exp.Select:
    """``SELECT *, columns FROM previous``: one step of the scoring pipeline."""
    return exp.select(exp.Star(), *columns).from_(exp.to_table(previous))


def input_step(source: exp.Expression, row: str | None) -> exp.Query:
    """The first step, ``wml_input``: the source's rows, numbered in scan order as ``row``
    when it is given (a name no source column has)."""
    if row is None:
        return exp.select(exp.Star()).from_(source.copy())
    return templates.build("select_numbered", source=source, row=row)


def terms_step(
    terms: Sequence[Term], passthrough: Sequence[tuple[str, str]], row: str | None
) -> exp.Select:
    """The step ``wml_terms`` over ``wml_input AS s``: the passed-through columns as
    ``wml_k_<i>``, the row number as ``wml_row`` (with ``row``), the terms' joins, and term t's
    expression for class i as the column ``wml_t_<t>_<i>``."""
    step = exp.select(
        *[alias(column(c, "s"), _internal("k", i)) for i, (c, _) in enumerate(passthrough)]
    ).from_(exp.to_table(INPUT).as_("s"))
    if row is not None:
        step = step.select(alias(column(row, "s"), ROW), copy=False)
    for term in terms:
        for join in term.joins:
            if join.on is None:
                step = step.join(join.relation(), join_type="CROSS", copy=False)
            else:
                kind = "INNER" if join.inner else "LEFT"
                step = step.join(join.relation(), on=join.on, join_type=kind, copy=False)
    for t, term in enumerate(terms):
        for i, expression in enumerate(term.per_class):
            step = step.select(alias(expression, term_column(t, i)), copy=False)
    return step


def score_query(
    source: exp.Expression,
    terms: Sequence[Term],
    classes: Sequence[Any],
    *,
    passthrough: Sequence[tuple[str, str]],
    probability_names: Sequence[str] | None,
    log_probability_names: Sequence[str] | None = None,
    prediction_name: str | None = "prediction",
    decision: Decision | None = None,
    row: str | None = None,
    column_order: Sequence[int] | None = None,
) -> exp.Query:
    """The full scoring query.

    Output columns, in order: the ``passthrough`` columns, (source column, output name) pairs;
    one probability column per class named by ``probability_names`` (DOUBLE in [0, 1]; names
    given in ``classes`` order, columns in ``column_order``, the class indices in output order,
    default class order); optional natural-log probabilities (named and ordered alike; -inf for
    an impossible class); optional prediction (the class label). With ``row`` (a name no
    source column has, see names.fresh) the rows come in the source's scan order (for results
    fetched to Python).

    Names: the source is read in the first step only (its columns as they are, plus ``row``);
    every later step carries the library's names alone (passed-through columns travel as
    ``wml_k_<i>``), so no source column can stand in for one of them; the output names are
    given in the last step.
    """
    k = len(classes)
    numbered = input_step(source, row)
    per_term = terms_step(terms, passthrough, row)
    carried = [_internal("k", i) for i in range(len(passthrough))] + ([ROW] if row else [])
    summed = exp.select(
        *[column(name) for name in carried],
        *[
            alias(balanced_sum([column(term_column(t, i)) for t in range(len(terms))]), j)
            for i, j in enumerate(_internal("j", i) for i in range(k))
        ],
    ).from_(exp.to_table(TERMS))

    joints = [column(_internal("j", i)) for i in range(k)]
    shifted = [column(_internal("s", i)) for i in range(k)]
    best, total = column(MAX), column(TOTAL)
    with_max = layer(JOINT, [alias(greatest(joints), MAX)])
    with_shift = layer(
        MAXED,
        [
            alias(templates.expression("shifted_exp", joint=joints[i], max=best), _internal("s", i))
            for i in range(k)
        ],
    )
    with_total = layer(SHIFTED, [alias(balanced_sum(shifted), TOTAL)])
    posterior = layer(
        TOTALLED,
        [
            item
            for i in range(k)
            for item in (
                alias(
                    templates.expression("probability", shifted=shifted[i], total=total),
                    _internal("p", i),
                ),
                alias(
                    templates.expression("log_probability", joint=joints[i], max=best, total=total),
                    _internal("lp", i),
                ),
            )
        ],
    )

    final = exp.select(
        *[alias(column(_internal("k", i)), name) for i, (_, name) in enumerate(passthrough)]
    ).from_(exp.to_table(POSTERIOR))
    order = range(k) if column_order is None else column_order
    for prefix, given in (("p", probability_names), ("lp", log_probability_names)):
        for i in order if given else ():
            final = final.select(alias(column(_internal(prefix, i)), given[i]), copy=False)
    if prediction_name is not None:
        final = final.select(
            alias(_prediction(classes, decision or Decision()), prediction_name), copy=False
        )
    if row is not None:  # qualified: an output column (a key) may be named like it
        final = final.order_by(column(ROW, POSTERIOR), copy=False)
    steps = [
        (INPUT, numbered),
        (TERMS, per_term),
        (JOINT, summed),
        (MAXED, with_max),
        (SHIFTED, with_shift),
        (TOTALLED, with_total),
        (POSTERIOR, posterior),
    ]
    for name, step in steps:
        final = final.with_(name, as_=step, copy=False)
    return final


def pivot_columns(value_column: str, n_classes: int, prefix: str) -> list[exp.Expression]:
    """``MAX(CASE WHEN p.class_index = i THEN p.<value_column> END) AS <prefix>_<i>`` per class."""
    return [
        alias(
            templates.expression("class_cell", class_index=i, value=column(value_column, "p")),
            f"{prefix}_{i}",
        )
        for i in range(n_classes)
    ]


def partition_condition(name: str, partition: str | None) -> exp.Expression:
    """Join condition matching the pivot ``name`` (column wml_part) to the scored row's model
    partition: its ``partition`` column (cross-validation's held-out fold), or 0, a fitted
    model's (``partition`` None)."""
    row = literal(0) if partition is None else column(partition, "s")
    return expressions.equals(column(PARTITION, name), row)


def per_partition(
    partition: str | None,
    choices: Sequence[exp.Expression | None],
    default: exp.Expression | None = None,
) -> exp.Expression | None:
    """The scored row's own choice among expressions that differ per partition (e.g. a TAN
    attribute's parent in each cross-validation fold's tree): ``choices[0]`` when the model has
    one partition (``partition`` None), else ``CASE s.<partition> WHEN 0 THEN choices[0] ...
    ELSE default END``. A None choice stands for ``default`` (NULL when None). When every
    partition has the same choice (a tree that no fold changes), that choice itself."""
    if partition is None or all(choice == choices[0] for choice in choices):
        return choices[0] if choices[0] is not None else default
    case = exp.case(column(partition, "s"))
    for index, choice in enumerate(choices):
        if choice is not None:
            case = case.when(literal(index), choice)
    return case if default is None else case.else_(default)


def pivot_one_row(
    table: TableName | exp.Query,
    value_column: str,
    n_classes: int,
    prefix: str,
    attribute: str | None = None,
) -> exp.Query:
    """One row per model partition (column wml_part) with one column per class of
    ``table.value_column`` (of ``attribute``'s rows, or of every row)."""
    condition = (
        exp.true()
        if attribute is None
        else exp.EQ(this=column("attribute", "p"), expression=literal(attribute))
    )
    return templates.build(
        "pivot_by_class",
        table=table,
        condition=condition,
        class_columns=pivot_columns(value_column, n_classes, prefix),
    )


def pivot_rows(
    table: TableName | exp.Query,
    keys: Sequence[str],
    value_column: str,
    n_classes: int,
    prefix: str,
    attribute: str,
) -> exp.Query:
    """One row per model partition (column wml_part) and ``keys`` of one attribute, with one
    column per class of ``value_column``."""
    return templates.build(
        "pivot_rows_by_class",
        table=table,
        key_columns=[alias(column(key, "p"), key) for key in keys],
        key_group=[column(key, "p") for key in keys],
        attribute=attribute,
        class_columns=pivot_columns(value_column, n_classes, prefix),
    )
