"""Step 3 of scoring: the decision, a class chosen from a row's normalised scores.

The rule (:class:`Decision`) is argmax (0/1 loss; ties to the first class in class order), a
threshold on a binary model's positive class, or the minimum expected loss of a loss matrix.
:func:`decide` writes it over the columns the normalisation step leaves
(models/scoring/normalise.py): each class's score ``wml_j_<i>`` and their maximum ``wml_max``
(argmax, exact where two scores differ by less than a rounding of the probabilities), and the
probabilities ``wml_p_<i>`` (threshold, loss). Explanations choose the predicted class by the
same argmax (:func:`argmax`, models/inspection/evidence.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from warehouse_ml.errors import ParameterError
from warehouse_ml.models.scoring.steps import balanced_sum, first_where, least
from warehouse_ml.sqlgen.templates import column, literal

MAX = "wml_max"
"""The column holding a row's largest class score."""


def score_column(class_index: int) -> str:
    """The column holding class ``class_index``'s score (log joint, or probability weight)."""
    return f"wml_j_{class_index}"


def probability_column(class_index: int) -> str:
    """The column holding class ``class_index``'s normalised probability."""
    return f"wml_p_{class_index}"


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


def argmax(values: Sequence[exp.Expression]) -> exp.Expression:
    """``values[i]`` of the first class whose score equals the row's maximum (ties to the
    first class in class order); NULL when every score is NULL."""
    best = column(MAX)
    return first_where(
        [exp.EQ(this=column(score_column(i)), expression=best.copy()) for i in range(len(values))],
        values,
    )


def decide(classes: Sequence[Any], decision: Decision) -> exp.Expression:
    """The predicted class label of a row under ``decision`` (for ``classes``)."""
    k = len(classes)
    probability = [column(probability_column(i)) for i in range(k)]
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
        best = least(scores)
        return first_where(
            [exp.EQ(this=scores[j], expression=best.copy()) for j in range(k)],
            [class_literal(c) for c in classes],
        )
    return argmax([class_literal(c) for c in classes])
