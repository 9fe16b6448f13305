"""Step 2 of scoring: a row's class scores normalised to probabilities.

The scores step (models/scoring/scores.py) leaves each class's score in ``wml_j_<i>`` of the
step :data:`SCORES`. A :class:`Normalisation` adds the steps after it, ending in
:data:`POSTERIOR`, which holds every column before it plus ``wml_max`` (the row's largest
score, what the argmax decision compares with) and ``wml_p_<i>`` (DOUBLE in [0, 1]); its
:meth:`Normalisation.log_probability` is each class's natural-log probability over those
columns (-infinity for an impossible class), written where a query outputs it: a column
that no later step reads still costs the engine its binding, 4 of the 14 ms DuckDB spent
planning the normalisation of soybean's 19 classes when every step computed them.

* :data:`LOG_SOFTMAX`, for log-space scores (a joint ``ln P(c) + sum of terms``): the
  max-shifted log-sum-exp, ``max = GREATEST(joint_0, ..., joint_{K-1})``, ``total = sum_c
  exp(joint_c - max)`` added pairwise in class order (so results are identical on every run),
  ``p_c = exp(joint_c - max) / total``. An impossible class (a NULL joint: a zero-probability
  term, only with ``alpha = 0``) has probability 0 and log probability -infinity (as ln 0, and
  scikit-learn's ``predict_log_proba``); a row for which every class is impossible gets NULL
  probabilities, log probabilities and prediction.
* :data:`RENORMALISED`, for probability scores (a decision tree's leaf probabilities, the
  average of an ensemble's member probabilities, neighbour counts): each score over the row's
  total, a NULL score counted as 0 (an impossible class); a row whose scores are all 0 or NULL
  gets NULL probabilities and prediction. Scores already summing to 1 come out unchanged but
  for rounding.
"""

from __future__ import annotations

import abc

from sqlglot import exp

from warehouse_ml.models.scoring.decision import MAX, probability_column, score_column
from warehouse_ml.models.scoring.steps import Step, balanced_sum, greatest, layer
from warehouse_ml.sqlgen import templates
from warehouse_ml.sqlgen.templates import alias, column, literal

SCORES = "wml_joint"
"""The last step of the scores: the carried columns and each class's score ``wml_j_<i>``."""
MAXED, SHIFTED, TOTALLED = "wml_maxed", "wml_shifted", "wml_totalled"
POSTERIOR = "wml_posterior"
"""The last step of the normalisation (module docstring)."""
TOTAL = "wml_total"


def maxed_step(k: int, largest: exp.Expression | None = None) -> Step:
    """:data:`MAXED` over :data:`SCORES`: ``wml_max``, the row's largest score (``largest``
    when given: an expression of it)."""
    best = greatest([column(score_column(i)) for i in range(k)])
    return (MAXED, layer(SCORES, [alias(best if largest is None else largest, MAX)]))


class Normalisation(abc.ABC):
    """How a kind of scores becomes probabilities (module docstring)."""

    @abc.abstractmethod
    def steps(self, k: int) -> list[Step]:
        """The steps after :data:`SCORES` of a model of ``k`` classes, ending in
        :data:`POSTERIOR`."""

    @abc.abstractmethod
    def log_probability(self, i: int) -> exp.Expression:
        """Class ``i``'s natural-log probability (DOUBLE; -infinity for an impossible class,
        NULL for a row without probabilities), over the columns of :data:`POSTERIOR`."""


class LogSoftmax(Normalisation):
    """Log-space scores, normalised by the max-shifted log-sum-exp."""

    def steps(self, k: int) -> list[Step]:
        joints = [column(score_column(i)) for i in range(k)]
        shifted = [column(f"wml_s_{i}") for i in range(k)]
        with_shift = layer(
            MAXED,
            [
                alias(
                    templates.expression("shifted_exp", joint=joints[i], max=column(MAX)),
                    f"wml_s_{i}",
                )
                for i in range(k)
            ],
        )
        posterior = layer(
            TOTALLED,
            [
                alias(
                    templates.expression("probability", shifted=shifted[i], total=column(TOTAL)),
                    probability_column(i),
                )
                for i in range(k)
            ],
        )
        return [
            maxed_step(k),
            (SHIFTED, with_shift),
            (TOTALLED, layer(SHIFTED, [alias(balanced_sum(shifted), TOTAL)])),
            (POSTERIOR, posterior),
        ]

    def log_probability(self, i: int) -> exp.Expression:
        return templates.expression(
            "log_probability", joint=column(score_column(i)), max=column(MAX), total=column(TOTAL)
        )


class Renormalised(Normalisation):
    """Probability scores (>= 0, NULL as 0), each divided by the row's total."""

    def steps(self, k: int) -> list[Step]:
        scores = [column(score_column(i)) for i in range(k)]
        positive = exp.func("NULLIF", greatest(scores), literal(0.0))  # all 0: no decision
        zeroed = [exp.func("COALESCE", s.copy(), literal(0.0)) for s in scores]
        posterior = [
            alias(
                templates.expression(
                    "renormalised_probability", score=scores[i], total=column(TOTAL)
                ),
                probability_column(i),
            )
            for i in range(k)
        ]
        return [
            maxed_step(k, positive),
            (TOTALLED, layer(MAXED, [alias(balanced_sum(zeroed), TOTAL)])),
            (POSTERIOR, layer(TOTALLED, posterior)),
        ]

    def log_probability(self, i: int) -> exp.Expression:
        return templates.expression("log_of_probability", probability=column(probability_column(i)))


LOG_SOFTMAX = LogSoftmax()
RENORMALISED = Renormalised()
