"""The fitted state of a linear discriminant analysis that is its own (models/state.py: the
learner protocol's ``state_class``), kept in the catalog details under the key
``linear_discriminant``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from warehouse_ml.models.state import NUMBER, OBJECT, TEXT, Fields, LearnedState, sequence

ROWS = sequence(sequence(NUMBER))


@dataclass(frozen=True)
class LinearDiscriminantState(LearnedState):
    """* ``columns``: each coefficient's name, ``(intercept)`` first (linear_design.py, each
      categorical attribute's reference level dropped);
    * ``priors``: each class's share of the training rows, in classes_ order;
    * ``means``: each class's mean of the design columns (without the intercept);
    * ``coefficients``: each class's intercept and coefficients, in ``columns`` order."""

    columns: tuple[str, ...]
    priors: tuple[float, ...]
    means: tuple[tuple[float, ...], ...]
    coefficients: tuple[tuple[float, ...], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "linear_discriminant": {
                "columns": list(self.columns),
                "priors": list(self.priors),
                "means": [list(r) for r in self.means],
                "coefficients": [list(r) for r in self.coefficients],
            }
        }

    @classmethod
    def from_json(cls, fields: Fields) -> LinearDiscriminantState:
        report = Fields(
            fields.take("linear_discriminant", OBJECT), fields.model, "linear_discriminant."
        )
        return cls(
            columns=report.take("columns", sequence(TEXT)),
            priors=report.take("priors", sequence(NUMBER)),
            means=report.take("means", ROWS),
            coefficients=report.take("coefficients", ROWS),
        )
