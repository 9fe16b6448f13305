"""The scoring query: plain SQL that turns a source's rows into class probabilities, in three
steps written once each:

1. the scores (models/scoring/scores.py): each class's score of the row, as the model family
   gives them: log-space additive terms, per-class probability expressions (a CASE tree), or a
   relation that aggregates per row;
2. the normalisation (models/scoring/normalise.py): log-sum-exp for log scores,
   renormalisation for probabilities;
3. the decision (models/scoring/decision.py): argmax, a threshold on a positive class, or the
   minimum expected loss.

An ensemble combines its members' normalised probabilities as per-class probability scores
before deciding; explanations (models/inspection/evidence.py) read the same scores steps.
Only standard SQL is used, so a view over this query runs in any SQL client.

A row whose numeric attribute is NaN or infinite (:class:`FiniteCheck`, the values a fit
refuses) has every class's score made NULL after step 1, whatever the family, so its
probabilities, log probabilities and prediction are NULL (the normalisations' rule for a row
without a possible class), never a label from NaN arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from warehouse_ml.models.scoring.decision import (
    Decision,
    decide,
    probability_column,
    score_column,
)
from warehouse_ml.models.scoring.normalise import POSTERIOR, SCORES
from warehouse_ml.models.scoring.scores import Scores
from warehouse_ml.models.scoring.steps import INPUT, ROW, Step, carried, input_step, with_steps
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column
from warehouse_ml.stats.moments import LARGEST

FENCED = (SCORES, POSTERIOR)
"""The steps an engine that inlines steps (``MATERIALIZED_STEPS``) computes once: the scores
(a copy of every term in each reader of a joint: the maximum, the shifted scores, the total,
each probability, 4.6-8.6 s of PostgreSQL planning for 300 rows at 8 classes) and the
posterior (read by a threshold or a loss matrix once per class). A fenced step takes no
filter from its reader, so a PostgreSQL prediction view read by its key scores every source
row (as its explanation views did before): planning a many-class query in milliseconds costs
that, against seconds of planning on every read of an unfenced one."""


CHECKED = "wml_checked"
"""The source with :class:`FiniteCheck`'s flag, as the input step reads it."""
UNCHECKED = "wml_unchecked"
"""The family's scores step, renamed, when :class:`FiniteCheck` makes the scores step."""


@dataclass(frozen=True)
class FiniteCheck:
    """The numeric attributes a scored row must hold finite numbers (or NULL) in to be scored:
    their source ``columns``, and ``flag``, a name no source column has (names.fresh), for
    the input step's column that says whether the row does
    (warehouse_ml/sql/models/scoring/finite_or_null.sql)."""

    columns: Sequence[str]
    flag: str

    def flagged(self, source: exp.Expression) -> exp.Expression:
        """``source`` with the flag: ``(SELECT *, <every column finite or NULL> AS flag FROM
        source) AS wml_checked``."""
        finite = [
            templates.expression("finite_or_null", value=column(name), largest=LARGEST)
            for name in self.columns
        ]
        condition = exp.and_(*finite, copy=False)
        return (
            exp.select(exp.Star(), alias(condition, self.flag))
            .from_(source.copy())
            .subquery(CHECKED)
        )


def _checked(steps: list[Step], flag: str, kept: Sequence[str], k: int) -> list[Step]:
    """``steps`` (the input step and the family's, the last :data:`SCORES`) with the family's
    scores step renamed :data:`UNCHECKED` and read by a new :data:`SCORES`: the ``kept``
    columns, each class's score where the carried ``flag`` holds, else NULL."""
    *before, (_, family) = steps
    scores = [
        alias(exp.case().when(column(flag), column(score_column(i))), score_column(i))
        for i in range(k)
    ]
    checked = exp.select(*(column(c) for c in kept), *scores).from_(exp.to_table(UNCHECKED))
    return [*before, (UNCHECKED, family), (SCORES, checked)]


def score_query(
    source: exp.Expression,
    scores: Scores,
    classes: Sequence[Any],
    *,
    passthrough: Sequence[tuple[str, str]],
    probability_names: Sequence[str] | None,
    log_probability_names: Sequence[str] | None = None,
    prediction_name: str | None = "prediction",
    decision: Decision | None = None,
    row: str | None = None,
    ordered: bool = True,
    column_order: Sequence[int] | None = None,
    materialized: bool = False,
    finite: FiniteCheck | None = None,
) -> exp.Query:
    """The full scoring query.

    Output columns, in order: the ``passthrough`` columns, (source column, output name) pairs;
    one probability column per class named by ``probability_names`` (DOUBLE in [0, 1]; names
    given in ``classes`` order, columns in ``column_order``, the class indices in output order,
    default class order); optional natural-log probabilities (named and ordered alike; -inf for
    an impossible class); optional prediction (the class label). With ``row`` (a name no
    source column has, see names.fresh) the rows are numbered in the source's scan order
    (scores whose terms read the number need it, ``Scores.numbered``), and come in that order
    when ``ordered`` (for results fetched to Python). ``materialized``: an engine's
    ``MATERIALIZED_STEPS`` (:data:`FENCED`). ``finite``: the numeric attributes whose NaN or
    infinite value voids a row's scores (module docstring).

    Names: the source is read in the first step only (its columns as they are, plus ``row``);
    every later step carries the library's names alone (passed-through columns travel as
    ``wml_k_<i>``), so no source column can stand in for one of them; the output names are
    given in the last step.
    """
    inner = list(passthrough)
    if finite is not None and finite.columns:
        source = finite.flagged(source)
        inner.append((finite.flag, finite.flag))
    steps = [(INPUT, input_step(source, row)), *scores.steps(inner, row)]
    if len(inner) > len(passthrough):
        flag = carried(len(inner), None)[-1]
        steps = _checked(steps, flag, carried(len(inner), row), len(classes))
    steps += scores.normalisation.steps(len(classes))
    final = exp.select(
        *[alias(column(f"wml_k_{i}"), name) for i, (_, name) in enumerate(passthrough)]
    ).from_(exp.to_table(POSTERIOR))
    order = range(len(classes)) if column_order is None else column_order
    for i in order if probability_names else ():
        final = final.select(alias(column(probability_column(i)), probability_names[i]), copy=False)
    for i in order if log_probability_names else ():
        logged = scores.normalisation.log_probability(i)
        final = final.select(alias(logged, log_probability_names[i], copy=False), copy=False)
    if prediction_name is not None:
        final = final.select(
            alias(decide(classes, decision or Decision()), prediction_name), copy=False
        )
    if row is not None and ordered:  # qualified: an output column (a key) may be named like it
        final = final.order_by(column(ROW, POSTERIOR), copy=False)
    return with_steps(final, steps, FENCED, materialized)
